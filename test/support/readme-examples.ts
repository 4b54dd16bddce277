/**
 * The README's runnable examples, and how their printed output is compared with a real run.
 *
 * A fenced block preceded by `<!-- example -->` (options after a colon: `exit=N`, `no-output`) is an
 * example. Two shapes:
 * - a session (`$ command` lines, each followed by what it printed): every command runs, and the
 *   lines after it must appear in its output;
 * - a script (a `bash` block): it runs as one script; when the very next block (nothing but blank
 *   lines between) is unlabelled or `json`, that block is the output it must print.
 *
 * Output is compared loosely enough for ids, times and counts to differ, and strictly enough for a
 * renamed command, a changed message or a dropped field to fail: see {@link outputMatches}.
 */

export interface ReadmeExample {
  /** 1-based line of the opening fence. */
  line: number;
  commands: ExampleCommand[];
  exit: number;
}

export interface ExampleCommand {
  script: string;
  /** What the README shows it printing (undefined: not checked). */
  expected?: string;
  /** The expected output is JSON: compare as a subset instead of line by line. */
  json?: boolean;
}

interface Fence {
  start: number;
  end: number;
  lang: string;
  body: string;
}

const MARKER = /^<!--\s*example(?::\s*(.*?))?\s*-->\s*$/;

function fences(lines: string[]): Fence[] {
  const out: Fence[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(\S*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const indent = open[1]!.length;
    let j = i + 1;
    while (j < lines.length && !/^\s*```\s*$/.test(lines[j]!)) j++;
    out.push({
      start: i,
      end: j,
      lang: open[2]!,
      body: lines
        .slice(i + 1, j)
        .map((l) => l.slice(Math.min(indent, l.length - l.trimStart().length)))
        .join('\n'),
    });
    i = j;
  }
  return out;
}

/** `$ a \` continuation lines form one command; everything up to the next `$ ` is its output. */
function sessionCommands(body: string): ExampleCommand[] {
  const commands: ExampleCommand[] = [];
  const lines = body.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]!.startsWith('$ ')) continue;
    const script = [lines[i]!.slice(2)];
    while (script.at(-1)!.endsWith('\\') && i + 1 < lines.length) script.push(lines[++i]!);
    const output: string[] = [];
    while (i + 1 < lines.length && !lines[i + 1]!.startsWith('$ ')) output.push(lines[++i]!);
    commands.push({ script: script.join('\n'), expected: output.join('\n') });
  }
  return commands;
}

export function parseExamples(markdown: string): ReadmeExample[] {
  const lines = markdown.split('\n');
  const all = fences(lines);
  const examples: ReadmeExample[] = [];
  all.forEach((fence, k) => {
    let m = fence.start - 1;
    while (m >= 0 && lines[m]!.trim() === '') m--;
    const marker = m >= 0 ? MARKER.exec(lines[m]!.trim()) : null;
    if (!marker) return;
    const options = (marker[1] ?? '').split(/[\s,]+/).filter(Boolean);
    const exit = Number(options.find((o) => o.startsWith('exit='))?.slice(5) ?? 0);
    const line = fence.start + 1;
    if (/^\$ /m.test(fence.body) && fence.lang !== 'bash') {
      examples.push({ line, exit, commands: sessionCommands(fence.body) });
      return;
    }
    const next = all[k + 1];
    const adjacent =
      next &&
      !options.includes('no-output') &&
      (next.lang === '' || next.lang === 'json') &&
      lines.slice(fence.end + 1, next.start).every((l) => l.trim() === '');
    examples.push({
      line,
      exit,
      commands: [
        {
          script: fence.body,
          ...(adjacent ? { expected: next.body, ...(next.lang === 'json' ? { json: true } : {}) } : {}),
        },
      ],
    });
  });
  return examples;
}

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;

/**
 * One line reduced to what must not drift: ANSI colour, runs of spaces, numbers (counts, times,
 * ports), dated session ids, UUIDs and hex ids become placeholders.
 */
export function normaliseLine(line: string): string {
  return line
    .replace(ANSI, '')
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>')
    .replace(/\b\d{8}-\d{6}-[0-9a-f]{6}\b/g, '<id>')
    .replace(/\b(?=[0-9a-f]*\d)[0-9a-f]{6,}\b/g, '<hex>')
    .replace(/\d+(?:\.\d+)?/g, '0')
    .replace(/\s+/g, ' ')
    .trim();
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** An expected line as a pattern: `…` (or `...`) stands for anything. */
function linePattern(expected: string): RegExp {
  const parts = normaliseLine(expected).split(/…|\.\.\./);
  return new RegExp(`^${parts.map(escapeRegExp).join('.*')}$`);
}

/**
 * The README's lines must appear in the actual output, in order (other lines may come between):
 * a line that is only `…` or `...` is a gap marker and checks nothing.
 */
export function outputMatches(expected: string, actual: string): { ok: boolean; missing?: string } {
  const want = expected.split('\n').filter((l) => l.trim() !== '' && !/^\s*(…|\.\.\.)\s*$/.test(l));
  const got = actual.split('\n').map(normaliseLine);
  let at = 0;
  for (const line of want) {
    const pattern = linePattern(line);
    while (at < got.length && !pattern.test(got[at]!)) at++;
    if (at === got.length) return { ok: false, missing: line };
    at++;
  }
  return { ok: true };
}

/** Every key the README shows is in the actual JSON with an equal value (numbers: same type only). */
export function jsonSubset(expected: unknown, actual: unknown, path = '$'): string | undefined {
  if (typeof expected === 'number') return typeof actual === 'number' ? undefined : `${path}: expected a number`;
  if (expected === null || typeof expected !== 'object')
    return expected === actual
      ? undefined
      : `${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
  if (actual === null || typeof actual !== 'object') return `${path}: expected an object`;
  for (const [k, v] of Object.entries(expected)) {
    const problem = jsonSubset(v, (actual as Record<string, unknown>)[k], `${path}.${k}`);
    if (problem) return problem;
  }
  return undefined;
}
