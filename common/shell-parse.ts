/**
 * Reading a command line the way a shell does, enough to judge it: quotes and escapes resolved,
 * `$IFS` as a space, line continuations joined, heredocs separated, operators and redirects
 * recognised, and command substitutions (`$(…)`, backticks, `<(…)`) returned for their own
 * check. Pure; used by the dangerous-command rules.
 */
export interface Word {
  text: string;
  /** Any part of it was quoted (then it is data, never an operator). */
  quoted: boolean;
}

export interface Simple {
  words: string[];
  /** Targets of `>`, `>>`, `&>`, `>|` redirects. */
  writes: string[];
  /** A heredoc (`<<`) feeds this command. */
  heredoc: boolean;
  /** The heredoc's text (a script only when a shell or interpreter reads it). */
  heredocBody?: string;
  /** Nested commands in this command's words: `$(…)`, backticks, `<(…)`. */
  nested: string[];
}

export interface Pipeline {
  commands: Simple[];
}

const SEPARATORS = new Set([';', '&&', '||', '&', '\n']);

/**
 * Tokenise a command line: words (quotes removed, escapes applied, `$IFS` as a space), operators,
 * redirects, and the text of command substitutions, returned separately.
 */
function lex(input: string): { tokens: Array<Word | { op: string }>; subs: string[] } {
  const src = input.replace(/\\\r?\n/g, '');
  const tokens: Array<Word | { op: string }> = [];
  const subs: string[] = [];
  let cur = '';
  let quoted = false;
  let inWord = false;
  const flush = () => {
    if (inWord) tokens.push({ text: cur, quoted });
    cur = '';
    quoted = false;
    inWord = false;
  };
  const readBalanced = (start: number, open: string, close: string): [string, number] => {
    let depth = 1;
    let i = start;
    let inner = '';
    while (i < src.length && depth > 0) {
      const c = src[i]!;
      if (c === '\\' && i + 1 < src.length) {
        inner += c + src[i + 1]!;
        i += 2;
        continue;
      }
      if (c === "'") {
        const end = src.indexOf("'", i + 1);
        const stop = end < 0 ? src.length : end + 1;
        inner += src.slice(i, stop);
        i = stop;
        continue;
      }
      if (c === open) depth += 1;
      else if (c === close) depth -= 1;
      if (depth > 0) inner += c;
      i += 1;
    }
    return [inner, i];
  };

  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    const rest = src.slice(i);
    const ifs = /^\$(?:\{IFS(?:[^}]*)\}|IFS\b)/.exec(rest);
    if (ifs) {
      flush();
      i += ifs[0].length;
      continue;
    }
    if (c === '\\' && i + 1 < src.length) {
      cur += src[i + 1]!;
      inWord = true;
      i += 2;
      continue;
    }
    if (c === "'") {
      const end = src.indexOf("'", i + 1);
      const stop = end < 0 ? src.length : end;
      cur += src.slice(i + 1, stop);
      inWord = true;
      quoted = true;
      i = stop + 1;
      continue;
    }
    if (c === '"') {
      i += 1;
      inWord = true;
      quoted = true;
      while (i < src.length && src[i] !== '"') {
        if (src[i] === '\\' && i + 1 < src.length && '"\\$`'.includes(src[i + 1]!)) {
          cur += src[i + 1]!;
          i += 2;
        } else if (src.startsWith('$(', i)) {
          const [inner, next] = readBalanced(i + 2, '(', ')');
          subs.push(inner);
          cur += `$(${inner})`;
          i = next;
        } else if (src[i] === '`') {
          const end = src.indexOf('`', i + 1);
          const stop = end < 0 ? src.length : end;
          subs.push(src.slice(i + 1, stop));
          cur += src.slice(i, stop + 1);
          i = stop + 1;
        } else {
          cur += src[i]!;
          i += 1;
        }
      }
      i += 1;
      continue;
    }
    if (src.startsWith('$(', i) && !src.startsWith('$((', i)) {
      const [inner, next] = readBalanced(i + 2, '(', ')');
      subs.push(inner);
      cur += `$(${inner})`;
      inWord = true;
      i = next;
      continue;
    }
    if (c === '`') {
      const end = src.indexOf('`', i + 1);
      const stop = end < 0 ? src.length : end;
      subs.push(src.slice(i + 1, stop));
      cur += src.slice(i, stop + 1);
      inWord = true;
      i = stop + 1;
      continue;
    }
    if ((c === '<' || c === '>') && src[i + 1] === '(') {
      flush();
      const [inner, next] = readBalanced(i + 2, '(', ')');
      subs.push(inner);
      tokens.push({ text: `${c}(${inner})`, quoted: false });
      i = next;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      flush();
      i += 1;
      continue;
    }
    const op = /^(?:&&|\|\||;;|&>>|&>|\d*>>|\d*>\||\d*>&\d*|\d*>|<<-?|<<<|<|\||;|&|\n|\(|\)|\{|\})/.exec(rest);
    // A `{`/`}` or digit only starts an operator where a word could not continue.
    if (op && !(inWord && /^[\d{}]/.test(op[0]))) {
      flush();
      tokens.push({ op: op[0] });
      i += op[0].length;
      continue;
    }
    cur += c;
    inWord = true;
    i += 1;
  }
  flush();
  return { tokens, subs };
}

/**
 * Cut heredoc bodies out of the command line: they are text fed to a command, not commands,
 * unless a shell or interpreter reads them (the caller checks that).
 */
function extractHeredocs(input: string): { text: string; bodies: string[] } {
  const lines = input.split('\n');
  const kept: string[] = [];
  const bodies: string[] = [];
  let pending: Array<{ delim: string; strip: boolean }> = [];
  let body: string[] = [];
  for (const line of lines) {
    const open = pending[0];
    if (open) {
      if ((open.strip ? line.replace(/^\t+/, '') : line) === open.delim) {
        bodies.push(body.join('\n'));
        body = [];
        pending = pending.slice(1);
      } else body.push(line);
      continue;
    }
    kept.push(line);
    for (const m of line.matchAll(/<<(-?)\s*(['"]?)([A-Za-z_][\w.-]*)\2/g)) {
      if (line[m.index - 1] !== '<') pending.push({ delim: m[3]!, strip: m[1] === '-' });
    }
  }
  if (body.length) bodies.push(body.join('\n'));
  return { text: kept.join('\n'), bodies };
}

export function parse(input: string): { pipelines: Pipeline[]; subs: string[] } {
  const { text, bodies } = extractHeredocs(input);
  const { tokens, subs } = lex(text);
  const pipelines: Pipeline[] = [];
  let pipeline: Pipeline = { commands: [] };
  let simple: Simple = { words: [], writes: [], heredoc: false, nested: [] };
  const endSimple = () => {
    if (simple.words.length || simple.writes.length) pipeline.commands.push(simple);
    simple = { words: [], writes: [], heredoc: false, nested: [] };
  };
  const endPipeline = () => {
    endSimple();
    if (pipeline.commands.length) pipelines.push(pipeline);
    pipeline = { commands: [] };
  };
  for (let t = 0; t < tokens.length; t++) {
    const tok = tokens[t]!;
    if ('text' in tok) {
      simple.words.push(tok.text);
      for (const s of subs) if (tok.text.includes(s) && s) simple.nested.push(s);
      continue;
    }
    const op = tok.op;
    if (op === '|') endSimple();
    else if (SEPARATORS.has(op) || op === '(' || op === ')' || op === '{' || op === '}' || op === ';;') endPipeline();
    else if (/>/.test(op) && !/>&\d/.test(op)) {
      const target = tokens[t + 1];
      if (target && 'text' in target) {
        simple.writes.push(target.text);
        t += 1;
      }
    } else if (op.startsWith('<<') && op !== '<<<') {
      simple.heredoc = true;
      const body = bodies.shift();
      if (body !== undefined) simple.heredocBody = body;
      const delim = tokens[t + 1];
      if (delim && 'text' in delim) t += 1;
    } else if (op === '<' || op === '<<<') {
      t += 1; // the file or string read is not a word of the command
    }
  }
  endPipeline();
  return { pipelines, subs };
}
