/**
 * What a chain of literal text and decoders prints, worked out from the command line:
 * `echo cm0gLXJmIH4= | base64 -d`, `xxd -r -p <<< 726d…`, `rev <<< '~ fr- mr'`,
 * `tr a-z n-za-m <<< 'ez -es ~'`. A shell fed such text runs it, so the gate reads it as the script
 * it is; decoding into a shell still asks by itself (code.ts), this only finds what it hides.
 */
import type { SimpleCommand } from '../shell.js';
import { literalStdout, nameOf } from './literal-text.js';

/** Longest decoded text read (a bigger one is not read, and decoding into a shell asks anyway). */
const MAX_TEXT = 20_000;
const MAX_DEPTH = 8;

type Decoder = (args: readonly string[], input: string) => string | null;

/** Text that decoded to something a script could be: no replacement or control characters but tab and newline. */
const readable = (t: string) =>
  [...t].some((c) => c === '\uFFFD' || c === '\x7F' || (c < ' ' && c !== '\t' && c !== '\n')) ? null : t;

const fromBase64 = (input: string) => {
  const b = input.replace(/\s+/g, '');
  return /^[A-Za-z0-9+/_-]*={0,2}$/.test(b) ? readable(Buffer.from(b, 'base64').toString('utf8')) : null;
};

const fromHex = (input: string) => {
  const h = input.replace(/\s+/g, '');
  return /^(?:[0-9a-fA-F]{2})*$/.test(h) ? readable(Buffer.from(h, 'hex').toString('utf8')) : null;
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

/** What the command prints, when the command line shows it or shows literal text it decodes; else null. */
export function decodedStdout(c: SimpleCommand, depth = 0): string | null {
  const literal = literalStdout(c);
  if (literal !== null) return literal;
  const decode = DECODERS[nameOf(c)];
  if (!decode || depth > MAX_DEPTH) return null;
  const args = c.words.slice(1).map((w) => w.value);
  if (args.some((a) => a === null)) return null;
  const input = stdinText(c, depth);
  if (input === null || input.length > MAX_TEXT) return null;
  return decode(args as string[], input);
}

/** What the command reads on standard input, shown or decoded on the command line. */
function stdinText(c: SimpleCommand, depth: number): string | null {
  const s = c.stdin;
  if (s?.kind === 'text') return s.text;
  if (s?.kind !== 'pipe' || !s.from.length) return null;
  const texts = s.from.map((p) => decodedStdout(p, depth + 1));
  return texts.every((t): t is string => t !== null) ? texts.join('') : null;
}
