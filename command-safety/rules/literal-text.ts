/**
 * Text the command line shows literally: what `echo`/`printf` with literal words print, what a
 * literal heredoc or here-string feeds a command, what `cat`/`tee` pass through a pipe. The rules
 * read such text as the script or data it becomes.
 */
import type { SimpleCommand } from '../shell.js';
import { decodeAnsiC } from '../shell-expand.js';

const basename = (p: string) => p.slice(p.lastIndexOf('/') + 1);
export const nameOf = (c: SimpleCommand) => basename(c.words[0]?.value ?? '');

/** `echo` / `printf` with literal words: the text they print. */
export function literalOutput(c: SimpleCommand): string | null {
  const [head, ...rest] = c.words;
  const name = head?.value ? basename(head.value) : '';
  if (rest.some((w) => w.value === null)) return null;
  const args = rest.map((w) => w.value!);
  if (name === 'echo') {
    let escapes = false;
    let newline = true;
    while (args[0] && /^-[neE]+$/.test(args[0])) {
      const f = args.shift()!;
      if (f.includes('e')) escapes = true;
      if (f.includes('E')) escapes = false;
      if (f.includes('n')) newline = false;
    }
    const text = args.join(' ');
    return (escapes ? decodeAnsiC(text) : text) + (newline ? '\n' : '');
  }
  if (name === 'printf') {
    const [format, ...values] = args;
    if (format === undefined) return null;
    let i = 0;
    const text = format.replace(/%([sbdq%])/g, (_m, k: string) => (k === '%' ? '%' : (values[i++] ?? '')));
    return decodeAnsiC(text);
  }
  return null;
}

/**
 * What a command prints when the command line shows it: `echo`/`printf` with literal words, `cat`
 * of a literal heredoc (`cat > x.sh <<'EOF'`), `cat` or `tee` passing literal input through; else null.
 */
export function literalStdout(c: SimpleCommand): string | null {
  const name = nameOf(c);
  if (name === 'cat' || name === 'tee') {
    if (name === 'cat' && c.words.length > 1) return null;
    return literalInput(c);
  }
  return literalOutput(c);
}

/**
 * The text a command reads on standard input, when the command line shows it literally; `stdout`
 * says what each command piping into it prints (decoded-text.ts also works decoders out).
 */
export function literalInput(
  c: SimpleCommand,
  stdout: (from: SimpleCommand) => string | null = literalStdout,
): string | null {
  const s = c.stdin;
  if (!s) return null;
  if (s.kind === 'text') return s.text;
  if (s.kind !== 'pipe' || !s.from.length) return null;
  const texts = s.from.map(stdout);
  return texts.every((t): t is string => t !== null) ? texts.join('') : null;
}
