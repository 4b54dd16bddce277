/** Globs and .gitignore rules for the file tools: segment-aware wildcards, braces, and git's precedence. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { IgnoreFile } from '../../activities/tools/glob.js';
import { expandBraces, fileGlobMatcher, globMatcher, isIgnored, parseGitignore } from '../../activities/tools/glob.js';

const matches = (glob: string, path: string, options = {}) => globMatcher(glob, options)(path);

describe('globMatcher', () => {
  it('keeps * and ? inside one path segment', () => {
    assert.ok(matches('*.ts', 'a.ts'));
    assert.ok(matches('*.ts', '.hidden.ts'));
    assert.ok(!matches('*.ts', 'src/a.ts'));
    assert.ok(!matches('*.ts', 'a.tsx'));
    assert.ok(matches('a?c', 'abc'));
    assert.ok(!matches('a?c', 'a/c'));
    assert.ok(!matches('a?c', 'ac'));
    assert.ok(matches('src/*/index.ts', 'src/x/index.ts'));
    assert.ok(!matches('src/*/index.ts', 'src/x/y/index.ts'));
  });

  it('lets ** as a whole segment span any number of directories', () => {
    assert.ok(matches('**/*.ts', 'a.ts'));
    assert.ok(matches('**/*.ts', 'src/deep/er/a.ts'));
    assert.ok(matches('src/**/*.ts', 'src/a.ts'));
    assert.ok(matches('src/**/*.ts', 'src/x/y/a.ts'));
    assert.ok(!matches('src/**/*.ts', 'lib/a.ts'));
    assert.ok(matches('src/**', 'src/a'));
    assert.ok(matches('src/**', 'src/a/b/c'));
    assert.ok(!matches('src/**', 'src'));
    assert.ok(matches('**', 'any/thing/at/all'));
    assert.ok(matches('a/**/b', 'a/b'));
    assert.ok(matches('a/**/b', 'a/x/y/b'));
    assert.ok(!matches('a/**/b', 'a/xb'));
  });

  it('treats ** inside a segment like * (as git does)', () => {
    assert.ok(matches('a**b', 'axxb'));
    assert.ok(!matches('a**b', 'a/x/b'));
  });

  it('expands {a,b} alternatives, nested too', () => {
    assert.ok(matches('*.{ts,js}', 'a.ts'));
    assert.ok(matches('*.{ts,js}', 'a.js'));
    assert.ok(!matches('*.{ts,js}', 'a.py'));
    assert.ok(matches('{src,lib}/**/*.{ts,tsx}', 'lib/x/a.tsx'));
    assert.ok(matches('a{b,c{d,e}}f', 'acef'));
    assert.ok(!matches('a{b,c{d,e}}f', 'acf'));
  });

  it('reads braces literally when they hold no alternatives or braces are off', () => {
    assert.ok(matches('{x}.txt', '{x}.txt'));
    assert.ok(matches('{a,b', '{a,b'));
    assert.ok(matches('{a,b}', '{a,b}', { braces: false }));
    assert.ok(!matches('{a,b}', 'a', { braces: false }));
  });

  it('supports character classes, negated ones never matching /', () => {
    assert.ok(matches('[abc].ts', 'b.ts'));
    assert.ok(!matches('[abc].ts', 'd.ts'));
    assert.ok(matches('file[0-9].txt', 'file7.txt'));
    assert.ok(matches('[!a].ts', 'b.ts'));
    assert.ok(!matches('[!a].ts', 'a.ts'));
    assert.ok(!matches('x[!a]y', 'x/y'));
    assert.ok(matches('[]]', ']'));
    // unclosed: a literal bracket
    assert.ok(matches('a[b', 'a[b'));
  });

  it('escapes regex syntax and honours backslash escapes', () => {
    assert.ok(matches('(x)+.ts', '(x)+.ts'));
    assert.ok(!matches('(x)+.ts', 'xx.ts'));
    assert.ok(matches('a.b', 'a.b'));
    assert.ok(!matches('a.b', 'axb'));
    assert.ok(matches('\\*.ts', '*.ts'));
    assert.ok(!matches('\\*.ts', 'a.ts'));
    assert.ok(matches('$^|', '$^|'));
  });

  it('is case sensitive unless told otherwise', () => {
    assert.ok(!matches('*.TS', 'a.ts'));
    assert.ok(matches('*.TS', 'a.ts', { caseSensitive: false }));
  });

  it('throws on an invalid class range', () => {
    assert.throws(() => globMatcher('[z-a]'), SyntaxError);
  });
});

describe('expandBraces', () => {
  it('expands groups left to right', () => {
    assert.deepEqual(expandBraces('{a,b}/{c,d}'), ['a/c', 'a/d', 'b/c', 'b/d']);
    assert.deepEqual(expandBraces('x{,y}'), ['x', 'xy']);
    assert.deepEqual(expandBraces('plain'), ['plain']);
    assert.deepEqual(expandBraces('x{1..3}'), ['x1', 'x2', 'x3']);
    assert.ok(matches('\\{a,b}', '{a,b}'), 'an escaped brace is literal');
    assert.ok(!matches('\\{a,b}', 'a'));
  });

  it('refuses an explosion of alternatives', () => {
    assert.throws(() => expandBraces('{a,b}'.repeat(12)), /more than 1024 alternatives/);
  });
});

describe('fileGlobMatcher', () => {
  it('matches the file name when the glob has no slash, the path when it has one', () => {
    const byName = fileGlobMatcher('*.ts');
    assert.ok(byName(['src/deep/a.ts']));
    assert.ok(!byName(['src/a.js']));
    const byPath = fileGlobMatcher('src/**/*.ts');
    assert.ok(byPath(['src/x/a.ts']));
    assert.ok(!byPath(['lib/src/a.ts']));
  });

  it('tries every path it is given (workspace- and search-root-relative)', () => {
    const m = fileGlobMatcher('lib/*.ts');
    assert.ok(m(['pkg/lib/a.ts', 'lib/a.ts']));
    assert.ok(!m(['pkg/lib/a.ts', 'pkg/lib/a.ts']));
  });

  it('mixes name and path alternatives, and ignores a leading ./', () => {
    const m = fileGlobMatcher('{*.md,./src/*.ts}');
    assert.ok(m(['docs/x.md']));
    assert.ok(m(['src/a.ts']));
    assert.ok(!m(['lib/a.ts']));
  });

  it('can ignore case', () => {
    assert.ok(fileGlobMatcher('readme*', false)(['README.md']));
    assert.ok(!fileGlobMatcher('readme*')(['README.md']));
  });
});

describe('gitignore', () => {
  const ignored = (text: string, path: string, isDir = false) =>
    isIgnored([{ dir: '', rules: parseGitignore(text) }], path, isDir);

  it('skips blank lines and comments', () => {
    assert.ok(!ignored('\n# a comment\n   \n', '# a comment'));
    assert.ok(ignored('# x\n*.log\n', 'a.log'));
    assert.ok(ignored('\\#notes', '#notes'));
  });

  it('matches a slash-free pattern at any depth', () => {
    assert.ok(ignored('*.log', 'a.log'));
    assert.ok(ignored('*.log', 'deep/dir/a.log'));
    assert.ok(ignored('build', 'pkg/build', true));
    assert.ok(!ignored('*.log', 'a.log.txt'));
    assert.ok(ignored('?.tmp', 'x/a.tmp'));
    assert.ok(!ignored('?.tmp', 'ab.tmp'));
  });

  it('anchors a pattern with a leading or middle slash to the .gitignore directory', () => {
    assert.ok(ignored('/build', 'build', true));
    assert.ok(!ignored('/build', 'pkg/build', true));
    assert.ok(ignored('docs/*.html', 'docs/a.html'));
    assert.ok(!ignored('docs/*.html', 'x/docs/a.html'));
    assert.ok(!ignored('docs/*.html', 'docs/sub/a.html'));
  });

  it('limits a trailing-slash pattern to directories', () => {
    assert.ok(ignored('logs/', 'logs', true));
    assert.ok(ignored('logs/', 'src/logs', true));
    assert.ok(!ignored('logs/', 'logs', false));
  });

  it('supports ** forms', () => {
    assert.ok(ignored('**/cache', 'a/b/cache', true));
    assert.ok(ignored('**/cache', 'cache', true));
    assert.ok(ignored('out/**', 'out/a/b.js'));
    assert.ok(!ignored('out/**', 'out', true));
    assert.ok(ignored('a/**/z', 'a/z'));
    assert.ok(ignored('a/**/z', 'a/b/c/z'));
  });

  it('lets a later negation re-include, and the last matching rule win', () => {
    const text = '*.log\n!keep.log\n';
    assert.ok(ignored(text, 'a.log'));
    assert.ok(!ignored(text, 'keep.log'));
    assert.ok(!ignored(text, 'sub/keep.log'));
    assert.ok(ignored('!keep.log\n*.log\n', 'keep.log'));
    assert.ok(ignored('\\!important', '!important'));
  });

  it('drops unescaped trailing spaces only', () => {
    assert.ok(ignored('a.txt   ', 'a.txt'));
    assert.ok(ignored('a\\ ', 'a '));
    assert.ok(!ignored('a\\ ', 'a'));
  });

  it('handles CRLF files, and a pattern with an invalid class leaves the other rules working', () => {
    const rules = parseGitignore('*.log\r\n[z-a]\r\n/tmp\r\n');
    assert.ok(isIgnored([{ dir: '', rules }], 'tmp', true));
    assert.ok(isIgnored([{ dir: '', rules }], 'a.log', false));
  });

  it('applies a nested .gitignore to its own directory, over the root one', () => {
    const files: IgnoreFile[] = [
      { dir: '', rules: parseGitignore('*.gen.ts\n') },
      { dir: 'pkg', rules: parseGitignore('!keep.gen.ts\n/local\n') },
    ];
    assert.ok(isIgnored(files, 'a.gen.ts', false));
    assert.ok(isIgnored(files, 'pkg/a.gen.ts', false));
    assert.ok(!isIgnored(files, 'pkg/keep.gen.ts', false));
    assert.ok(isIgnored(files, 'keep.gen.ts', false), 'the nested rule does not reach outside pkg/');
    assert.ok(isIgnored(files, 'pkg/local', true));
    assert.ok(!isIgnored(files, 'local', true));
    assert.ok(!isIgnored(files, 'pkg2/local', true), 'pkg is a directory name, not a prefix');
  });
});
