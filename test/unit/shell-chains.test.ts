/**
 * Long `&&`/`||`/newline chains are parsed as `;` sequences for speed (command-safety/shell-chains.ts).
 * The walk must find exactly the same commands as from the text as written: every labelled command,
 * chains of them joined every way, and texts where the operators sit in strings, comments, heredocs,
 * tests and groups, where the rewrite must be refused.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { chainsAsSequences } from '../../command-safety/shell-chains.js';
import { loadShellParser, parseShell } from '../../command-safety/shell.js';
import { PROJECT_ROOT } from '../../runtime/paths.js';
import { prng } from '../support/prng.js';

const DIR = join(PROJECT_ROOT, 'test/fixtures/commands');
const corpus: string[] = readdirSync(DIR)
  .filter((f) => f.endsWith('.jsonl'))
  .flatMap((f) =>
    readFileSync(join(DIR, f), 'utf8')
      .split('\n')
      .filter((l) => l.trim()),
  )
  .map((l) => (JSON.parse(l) as { command: string }).command);

/**
 * The same commands from the text as written, where tree-sitter-bash reads that without error (where
 * it does not, as in `ls | head | cat⏎rm -rf ~ <x || y`, the sequence is the better reading).
 * Whether the two were compared.
 */
const sameReading = (text: string): boolean => {
  const written = parseShell(text, { asWritten: true });
  if (written.errors.length) return false;
  assert.deepEqual(parseShell(text), written, text);
  return true;
};

describe('chains read as sequences', () => {
  before(async () => {
    await loadShellParser();
  });

  it('finds the same commands in every labelled command as in its text as written', () => {
    const compared = corpus.filter(sameReading).length;
    assert.ok(compared > corpus.length * 0.95, `${compared} of ${corpus.length} compared`);
  });

  it('finds the same commands in chains of labelled commands joined by &&, || and newlines', () => {
    const next = prng(7);
    let compared = 0;
    for (let n = 0; n < 400; n++) {
      const parts = Array.from(
        { length: 2 + Math.floor(next() * 5) },
        () => corpus[Math.floor(next() * corpus.length)]!,
      );
      const joined = parts.reduce((a, b) => a + [' && ', '||', '\n', ' &&\n  ', '; '][Math.floor(next() * 5)]! + b);
      if (sameReading(joined)) compared++;
    }
    assert.ok(compared > 300, `${compared} of 400 compared`);
  });

  it('reads two lines tree-sitter-bash runs together as two commands', () => {
    const text = "git ls-files | grep '\\.ts$' | wc -l\nnpm test < /dev/null || true";
    const fast = parseShell(text);
    assert.deepEqual(fast.errors, []);
    assert.deepEqual(
      fast.commands.map((c) => c.words.map((w) => w.value).join(' ')),
      ['git ls-files', 'grep \\.ts$', 'wc -l', 'npm test', 'true'],
    );
    // As written, the walk splits the run-together command and reports the span it cannot read.
    const written = parseShell(text, { asWritten: true });
    assert.equal(written.errors.length, 1);
    assert.ok(written.commands.some((c) => c.words[0]?.value === 'npm'));
  });

  it('rewrites operators between top-level statements and nothing else', () => {
    const rewritten = (t: string) => chainsAsSequences(t)?.text ?? t;
    assert.equal(rewritten('make && make test || echo failed'), 'make ;  make test ;  echo failed');
    assert.equal(rewritten('npm ci\nnpm test'), 'npm ci;npm test');
    assert.equal(rewritten('echo "a && b" && x'), 'echo "a && b" ;  x');
    assert.equal(rewritten("echo 'a || b'"), "echo 'a || b'");
    assert.equal(rewritten('[[ -f a && -f b ]] && x'), '[[ -f a && -f b ]] ;  x');
    assert.equal(rewritten('echo $(a && b) && c'), 'echo $(a && b) ;  c');
    assert.equal(rewritten('x 2>&1 && y'), 'x 2>&1 ;  y');
    assert.equal(rewritten('a && b # c && d\ne'), 'a ;  b # c && d;e');
  });

  it('keeps the text as written where a rewrite would change what runs', () => {
    for (const t of [
      'cat <<EOF && rm -rf ~\nrm -rf /\nEOF\necho done',
      'echo "$(echo ")" && rm -rf ~)" && ls',
      'if true && false\nthen rm -rf ~\nfi',
      '{ a && b; } && c',
      '(( x && y )) && z',
      'echo `a && b` && c',
      'a # && rm -rf /\nb',
      'case $x in a) b && c;; esac && d',
      'a &&\nb\n\nc',
      'a\\\n&& b',
    ])
      sameReading(t);
  });
});
