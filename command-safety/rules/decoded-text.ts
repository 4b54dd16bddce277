/**
 * What a chain of literal text and decoders prints, worked out from the command line:
 * `echo cm0gLXJmIH4= | base64 -d`, `xxd -r -p <<< 726d…`, `rev <<< '~ fr- mr'`,
 * `tr a-z n-za-m <<< 'ez -es ~'`. A shell fed such text runs it, so the gate reads it as the script
 * it is; decoding into a shell still asks by itself (code.ts), this only finds what it hides.
 */
import type { SimpleCommand } from '../shell.js';
import { decodeWith } from '../decoders.js';
import { literalStdout, nameOf } from './literal-text.js';

const MAX_DEPTH = 8;

/** What the command prints, when the command line shows it or shows literal text it decodes; else null. */
export function decodedStdout(c: SimpleCommand, depth = 0): string | null {
  const literal = literalStdout(c);
  if (literal !== null) return literal;
  if (depth > MAX_DEPTH) return null;
  const args = c.words.slice(1).map((w) => w.value);
  if (args.some((a) => a === null)) return null;
  const input = stdinText(c, depth);
  return input === null ? null : decodeWith(nameOf(c), args as string[], input);
}

/** What the command reads on standard input, shown or decoded on the command line. */
function stdinText(c: SimpleCommand, depth: number): string | null {
  const s = c.stdin;
  if (s?.kind === 'text') return s.text;
  if (s?.kind !== 'pipe' || !s.from.length) return null;
  const texts = s.from.map((p) => decodedStdout(p, depth + 1));
  return texts.every((t): t is string => t !== null) ? texts.join('') : null;
}
