/**
 * What a chain of literal text and decoders prints, worked out from the command line:
 * `echo cm0gLXJmIH4= | base64 -d`, `xxd -r -p <<< 726d…`, `rev <<< '~ fr- mr'`,
 * `tr a-z n-za-m <<< 'ez -es ~'`. A shell fed such text runs it, so the gate reads it as the script
 * it is; decoding into a shell still asks by itself (code.ts), this only finds what it hides.
 */
import type { SimpleCommand } from '../shell.js';
import { decodeWith } from '../decoders.js';
import { literalInput, literalStdout, nameOf } from './literal-text.js';

const MAX_DEPTH = 8;

/** What the command prints, when the command line shows it or shows literal text it decodes; else null. */
export function decodedStdout(c: SimpleCommand, depth = 0): string | null {
  const literal = literalStdout(c);
  if (literal !== null) return literal;
  if (depth > MAX_DEPTH) return null;
  const args = c.words.slice(1).map((w) => w.value);
  if (args.some((a) => a === null)) return null;
  const input = literalInput(c, (p) => decodedStdout(p, depth + 1));
  return input === null ? null : decodeWith(nameOf(c), args as string[], input);
}
