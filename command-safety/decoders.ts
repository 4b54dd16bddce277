/**
 * The decoders a shell line can hide a script behind, worked out in the gate: `base64 -d`,
 * `basenc --base64 -d`, `openssl base64 -d`, `xxd -r -p`, `rev`, and `tr` with plain ranges
 * (ROT13). Each takes the program's arguments and its input text and returns what it prints, or
 * null when the gate does not read that form. Pure: used by the expansion of substitutions
 * (`$(echo … | base64 -d)`) and by what a pipe feeds a shell (rules/decoded-text.ts).
 */

type Decoder = (args: readonly string[], input: string) => string | null;

/** Text that decoded to something a script could be: no replacement or control characters but tab and newline. */
const readable = (t: string) =>
  !t || [...t].some((c) => c === '\uFFFD' || c === '\x7F' || (c < ' ' && c !== '\t' && c !== '\n')) ? null : t;

const fromBase64 = (input: string) => {
  const b = input.replace(/\s+/g, '');
  if (b.length < 4 || b.length % 4 === 1 || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(b)) return null;
  return readable(Buffer.from(b, 'base64').toString('utf8'));
};

const fromHex = (input: string) => {
  const h = input.replace(/\s+/g, '');
  return /^(?:[0-9a-fA-F]{2})+$/.test(h) ? readable(Buffer.from(h, 'hex').toString('utf8')) : null;
};

/** A `tr` set with ranges (`a-z`, `n-za-m`) spelled out; null for classes, escapes and other forms it does not read. */
function trSet(set: string): string[] | null {
  if (/[[\\]/.test(set)) return null;
  const out: string[] = [];
  const chars = [...set];
  for (let i = 0; i < chars.length; i++) {
    if (chars[i + 1] === '-' && chars[i + 2] !== undefined) {
      const [a, b] = [chars[i]!.codePointAt(0)!, chars[i + 2]!.codePointAt(0)!];
      if (b < a || b - a > 256) return null;
      for (let c = a; c <= b; c++) out.push(String.fromCodePoint(c));
      i += 2;
    } else out.push(chars[i]!);
  }
  return out;
}

const decodes = (args: readonly string[]) => args.some((a) => /^-[a-zA-Z]*[dD]|^--decode$/.test(a));

const DECODERS: Record<string, Decoder> = {
  base64: (args, input) => (decodes(args) ? fromBase64(input) : null),
  basenc: (args, input) => (decodes(args) && args.includes('--base64') ? fromBase64(input) : null),
  openssl: (args, input) =>
    (args[0] === 'base64' || (args[0] === 'enc' && args.some((a) => /^-(a|base64)$/.test(a)))) && args.includes('-d')
      ? fromBase64(input)
      : null,
  xxd: (args, input) => {
    const flags = args.filter((a) => a.startsWith('-')).join('');
    return /r/.test(flags) && /p/.test(flags) ? fromHex(input) : null;
  },
  rev: (args, input) =>
    args.length
      ? null
      : input
          .split('\n')
          .map((l) => [...l].reverse().join(''))
          .join('\n'),
  tr: (args, input) => {
    if (args.length !== 2 || args.some((a) => a.startsWith('-'))) return null;
    const [from, to] = [trSet(args[0]!), trSet(args[1]!)];
    if (!from || !to || !to.length) return null;
    const map = new Map(from.map((c, i) => [c, to[Math.min(i, to.length - 1)]!]));
    return [...input].map((c) => map.get(c) ?? c).join('');
  },
};

/** Longest input decoded (a bigger one is not read, and decoding into a shell asks anyway). */
const MAX_DECODED_INPUT = 20_000;

/** What `name args…` prints given `input`, when it is one of the decoders above; else null. */
export function decodeWith(name: string, args: readonly string[], input: string): string | null {
  const decode = Object.hasOwn(DECODERS, name) ? DECODERS[name] : undefined;
  return decode && input.length <= MAX_DECODED_INPUT ? decode(args, input) : null;
}

const ESCAPES: Record<string, string> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  '"': '"',
  "'": "'",
  '?': '?',
};

/**
 * What printf's format, its `%b` and `echo -e` make of backslash escapes (`\x72\x6d` is `rm`,
 * `\162` too); null for `\c` (stop printing) and escapes it does not read.
 */
export function unescaped(text: string): string | null {
  let known = true;
  const out = text.replace(/\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|0?[0-7]{1,3}|[\s\S]?)/g, (_, e: string) => {
    if (/^[xu]/.test(e)) return String.fromCodePoint(parseInt(e.slice(1), 16));
    if (/^[0-7]/.test(e)) return String.fromCodePoint(parseInt(e, 8));
    const c = ESCAPES[e];
    if (c === undefined) known = false;
    return c ?? '';
  });
  return known ? out : null;
}

/**
 * What `printf FORMAT ARGS…` prints when the format holds only `%s` and `%%` (the format is used
 * again for each group of arguments, as printf does) and its escapes are read; null otherwise.
 */
export function printfText(format: string, args: readonly string[]): string | null {
  const parts = format.split('%s');
  if (parts.some((p) => p.replace(/%%/g, '').includes('%'))) return null;
  const text = parts.map((p) => unescaped(p.replace(/%%/g, '%')));
  if (text.includes(null)) return null;
  const slots = parts.length - 1;
  let out = '';
  let i = 0;
  do {
    out += text[0];
    for (let k = 1; k <= slots; k++) out += (args[i++] ?? '') + text[k];
  } while (slots > 0 && i < args.length);
  return out;
}
