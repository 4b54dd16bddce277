/** Fuzzy name matching for "did you mean" hints (unknown tool names, CLI commands). */

export function levenshtein(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length]!;
}

/** Normalise a model's tool name guess: case, separators, CamelCase, a trailing "tool". */
export function normaliseToolName(name: string): string {
  return name
    .trim()
    .replace(/^["'`<]+|["'`>]+$/g, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[\s-]+/g, '_')
    .replace(/_?tool$/, '');
}

/**
 * The real tool a model's mangled name stands for, when there is exactly one: markup a template
 * leaked into the name (`terminal" parameter="command"`, `<function=terminal>`, `functions.terminal`,
 * `read_file</tool_call>`) is cut off, then case, separators and a trailing "tool" are ignored. Only
 * an exact match after that repairs a call; a merely similar name (`terminl`) stays unknown and gets
 * a "did you mean" hint instead, so a call never runs a tool the model did not name.
 */
export function repairToolName(name: string, candidates: readonly string[]): string | undefined {
  if (candidates.includes(name)) return name;
  const byNormalised = new Map(candidates.map((c) => [normaliseToolName(c), c]));
  for (const guess of [withoutLeakedMarkup(name), name]) {
    const hit = guess ? byNormalised.get(normaliseToolName(guess)) : undefined;
    if (hit) return hit;
  }
  return undefined;
}

/** The leading identifier of a name, after an opening tag or a `functions.` prefix. */
function withoutLeakedMarkup(name: string): string | undefined {
  const s = name
    .trim()
    .replace(/^(?:<\/?[A-Za-z_]+(?:=|>))+/, '')
    .replace(/^["'`]+/, '')
    .replace(/^(?:functions?|tools?)[.:]/i, '');
  return /^[A-Za-z0-9_-]+/.exec(s)?.[0];
}

/** The closest candidate to `name`, if it is close enough (similarity ≥ 0.7). */
export function closestName(name: string, candidates: readonly string[]): string | undefined {
  const target = normaliseToolName(name);
  let best: { name: string; score: number } | undefined;
  for (const c of candidates) {
    if (normaliseToolName(c) === target) return c;
    const d = levenshtein(target, c);
    const score = 1 - d / Math.max(target.length, c.length, 1);
    if (!best || score > best.score) best = { name: c, score };
  }
  return best && best.score >= 0.7 ? best.name : undefined;
}

/**
 * The closest key to a misspelt one (config keys: `maxIteratons` → `maxIterations`), compared
 * without case, if it is close enough (similarity ≥ 0.6).
 */
export function closestKey(name: string, candidates: readonly string[]): string | undefined {
  const target = name.toLowerCase();
  let best: { name: string; score: number } | undefined;
  for (const c of candidates) {
    const lower = c.toLowerCase();
    if (lower === target) return c;
    const d = levenshtein(target, lower);
    const score = 1 - d / Math.max(target.length, lower.length, 1);
    if (!best || score > best.score) best = { name: c, score };
  }
  return best && best.score >= 0.6 ? best.name : undefined;
}
