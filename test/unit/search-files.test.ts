/**
 * `search_files`: regex search over text files and glob search over names, honouring .gitignore
 * (negation and nested files included), skipping binaries and huge files, capped, cancellable, and
 * never reading through a symlink that leads out of the workspace.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ToolContext } from '../../activities/tools/registry.js';
import { searchFilesTool } from '../../activities/tools/search-files.js';
import { WorkspaceEscapeError } from '../../workspace-files/confine.js';
import { toolContext } from '../support/tool-context.js';

type Args = Parameters<typeof searchFilesTool.handler>[0];

describe('search_files', () => {
  let base: string;
  let ws: string;
  let outside: string;
  let ctx: ToolContext;
  const put = (rel: string, content: string | Buffer) => {
    mkdirSync(dirname(join(ws, rel)), { recursive: true });
    writeFileSync(join(ws, rel), content);
  };
  before(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'herald-search-')));
    ws = join(base, 'ws');
    outside = join(base, 'outside');
    mkdirSync(ws);
    mkdirSync(outside);
    writeFileSync(join(outside, 'secret.txt'), 'TODO: outside secret\n');
    put('.gitignore', '# build output\n/dist\n*.log\n!keep.log\ntmp/\n');
    put('src/app.ts', 'const a = 1;\n// TODO: first\nexport function main() {}\n');
    put('src/util.ts', 'export const x = 2; // todo lower\n');
    put('src/view.tsx', '// TODO: in tsx\r\n');
    put('src/deep/nested.ts', 'export {}; // TODO: nested\n');
    put('README.md', '# Readme\nTODO: docs\n');
    put('dist/bundle.js', 'TODO: ignored build output\n');
    put('debug.log', 'TODO: ignored log\n');
    put('keep.log', 'TODO: re-included log\n');
    put('src/tmp/scratch.ts', 'TODO: ignored directory\n');
    put('node_modules/pkg/index.js', 'TODO: dependency\n');
    put('.git/config', 'TODO: git internals\n');
    put('pkg/.gitignore', 'generated.ts\n!/important.log\n');
    put('pkg/generated.ts', 'TODO: ignored by nested gitignore\n');
    put('pkg/important.log', 'TODO: re-included by nested gitignore\n');
    put('pkg/other.ts', 'TODO: pkg source\n');
    put('generated.ts', 'TODO: the nested rule does not apply here\n');
    put('image.png', Buffer.concat([Buffer.from('TODO'), Buffer.from([0, 1, 2, 3])]));
    put('big.txt', `TODO: huge\n${'x'.repeat(2 * 1024 * 1024)}`);
    put('wide.txt', `TODO ${'w'.repeat(1000)}\n`);
    symlinkSync(join(outside, 'secret.txt'), join(ws, 'secret-link.txt'));
    symlinkSync(outside, join(ws, 'outside-dir'));
    symlinkSync(join(outside, 'not-yet.txt'), join(ws, 'dangling-link.txt'));
    symlinkSync(join(ws, 'README.md'), join(ws, 'readme-link.md'));
    ctx = toolContext(ws);
  });
  after(() => {
    rmSync(base, { recursive: true, force: true });
  });

  const search = (args: Args, context = ctx) => searchFilesTool.handler(args, context);
  const lines = (content: string) => content.split('\n').filter((l) => !l.startsWith('['));

  it('finds matching lines as path:line: text', async () => {
    const r = await search({ pattern: 'TODO: (first|nested)', path: 'src' });
    assert.deepEqual(r, {
      content: 'src/app.ts:2: // TODO: first\nsrc/deep/nested.ts:1: export {}; // TODO: nested\n[2 matches in 2 files]',
    });
  });

  it('respects .gitignore: patterns, anchoring, directories, negation, nested files; skips .git and node_modules', async () => {
    const r = await search({ pattern: 'TODO' });
    assert.equal(r.isError, undefined);
    const files = new Set(lines(r.content).map((l) => l.slice(0, l.indexOf(':'))));
    assert.deepEqual(
      [...files].sort(),
      [
        'README.md',
        'generated.ts',
        'keep.log',
        'pkg/important.log',
        'pkg/other.ts',
        'readme-link.md',
        'src/app.ts',
        'src/deep/nested.ts',
        'src/view.tsx',
        'wide.txt',
      ].sort(),
    );
  });

  it('applies the .gitignore files above a narrower search path', async () => {
    const r = await search({ pattern: 'TODO', path: 'src' });
    assert.doesNotMatch(r.content, /src\/tmp/);
    assert.match(r.content, /src\/app\.ts:2:/);
  });

  it('skips binary files and files over 2 MB, and says so', async () => {
    const r = await search({ pattern: 'TODO' });
    assert.doesNotMatch(r.content, /image\.png|big\.txt/);
    assert.match(r.content, /skipped 1 binary file and 1 file over 2 MB\]$/);
  });

  it('strips CR and cuts long lines at 300 characters', async () => {
    const r = await search({ pattern: 'TODO', glob: '*.{tsx,txt}' });
    const got = lines(r.content);
    assert.ok(got.includes('src/view.tsx:1: // TODO: in tsx'), r.content);
    const wide = got.find((l) => l.startsWith('wide.txt:1: '))!;
    assert.equal(wide, `wide.txt:1: TODO ${'w'.repeat(295)}…`);
  });

  it('matches case-insensitively on request', async () => {
    const sensitive = await search({ pattern: 'todo lower', path: 'src' });
    assert.match(sensitive.content, /^src\/util\.ts:1:/);
    const upper = await search({ pattern: 'TODO LOWER', path: 'src' });
    assert.match(upper.content, /^No matches for \/TODO LOWER\/ in src/);
    const insensitive = await search({ pattern: 'TODO LOWER', path: 'src', case_sensitive: false });
    assert.match(insensitive.content, /^src\/util\.ts:1:/);
  });

  it('filters files with a glob, by name or by path', async () => {
    const byName = await search({ pattern: 'TODO', glob: '*.ts' });
    assert.deepEqual(
      lines(byName.content).map((l) => l.split(':')[0]),
      ['generated.ts', 'pkg/other.ts', 'src/app.ts', 'src/deep/nested.ts'],
    );
    const byPath = await search({ pattern: 'TODO', glob: 'src/**/*.ts' });
    assert.deepEqual(
      lines(byPath.content).map((l) => l.split(':')[0]),
      ['src/app.ts', 'src/deep/nested.ts'],
    );
    const fromSearchRoot = await search({ pattern: 'TODO', path: 'src', glob: 'deep/*.ts' });
    assert.deepEqual(
      lines(fromSearchRoot.content).map((l) => l.split(':')[0]),
      ['src/deep/nested.ts'],
    );
  });

  it('searches a single named file, whatever .gitignore says', async () => {
    const r = await search({ pattern: 'TODO', path: 'debug.log' });
    assert.equal(r.content, 'debug.log:1: TODO: ignored log\n[1 match in 1 file]');
  });

  it('lists files by glob when target is files', async () => {
    const ts = await search({ pattern: '*.ts', target: 'files' });
    assert.deepEqual(ts, {
      content: 'generated.ts\npkg/other.ts\nsrc/app.ts\nsrc/deep/nested.ts\nsrc/util.ts\n[5 files]',
    });
    const braces = await search({ pattern: 'src/**/*.{ts,tsx}', target: 'files' });
    assert.deepEqual(lines(braces.content), ['src/app.ts', 'src/deep/nested.ts', 'src/util.ts', 'src/view.tsx']);
    const none = await search({ pattern: '*.rs', target: 'files' });
    assert.deepEqual(none, { content: 'No files matching "*.rs" in .' });
  });

  it('caps results and says so', async () => {
    const capped = await search({ pattern: 'TODO', max_results: 3 });
    const got = capped.content.split('\n');
    assert.equal(got.length, 4);
    assert.match(got[3]!, /^\[results capped at 3; narrow the search with path or glob, or raise max_results/);
    const files = await search({ pattern: '*.ts', target: 'files', max_results: 2 });
    assert.deepEqual(files.content.split('\n'), [
      'generated.ts',
      'pkg/other.ts',
      '[results capped at 2; narrow the search with path or glob, or raise max_results (at most 1000)]',
    ]);
  });

  it('does not claim a cap when the results exactly fill max_results', async () => {
    const r = await search({ pattern: 'TODO: (first|nested)', path: 'src', max_results: 2 });
    assert.match(r.content, /\[2 matches in 2 files\]$/);
  });

  it('refuses max_results outside 1..1000 through its schema', () => {
    assert.equal(searchFilesTool.parameters.safeParse({ pattern: 'x', max_results: 1001 }).success, false);
    assert.equal(searchFilesTool.parameters.safeParse({ pattern: 'x', max_results: 0 }).success, false);
    assert.equal(searchFilesTool.parameters.safeParse({ pattern: 'x', target: 'names' }).success, false);
  });

  it('reports an invalid regular expression or glob as a tool error', async () => {
    const r = await search({ pattern: 'foo(' });
    assert.equal(r.isError, true);
    assert.match(r.content, /^Invalid regular expression "foo\(": /);
    const g = await search({ pattern: 'x', glob: '[z-a].ts' });
    assert.equal(g.isError, true);
    assert.match(g.content, /^Invalid glob "\[z-a\]\.ts": /);
    const f = await search({ pattern: '[z-a]', target: 'files' });
    assert.match(f.content, /^Invalid glob/);
  });

  it('accepts Unicode property escapes and escaped punctuation', async () => {
    const unicode = await search({ pattern: '\\p{Lu}{4}:', path: 'src' });
    assert.match(unicode.content, /src\/app\.ts:2:/);
    const legacy = await search({ pattern: 'TODO\\: first', path: 'src' });
    assert.match(legacy.content, /src\/app\.ts:2:/);
  });

  it('runs a catastrophic pattern in linear time', async () => {
    put('evil/aaa.txt', `${'a'.repeat(50_000)}b\n`.repeat(20));
    const started = Date.now();
    const r = await search({ pattern: '(a+)+$', path: 'evil' });
    const elapsed = Date.now() - started;
    // A backtracking engine would not return at all (test/integration/hostile-replies.test.ts checks
    // that other conversations keep streaming meanwhile).
    assert.match(r.content, /No matches/);
    assert.ok(elapsed < 10_000, `took ${elapsed} ms`);
  });

  it('explains patterns RE2 cannot run, and accepts JavaScript \\u escapes', async () => {
    const look = await search({ pattern: 'TODO(?=:)' });
    assert.equal(look.isError, true);
    assert.match(look.content, /RE2 syntax, which runs in linear time: no lookarounds or backreferences/);
    const u = await search({ pattern: '\\u0054ODO: first', path: 'src' });
    assert.match(u.content, /src\/app\.ts:2:/);
  });

  it('reports a path that does not exist', async () => {
    assert.deepEqual(await search({ pattern: 'x', path: 'nope' }), { content: 'Path not found: nope', isError: true });
  });

  describe('confinement', () => {
    const refused = async (path: string) => {
      await assert.rejects(search({ pattern: 'secret', path }), WorkspaceEscapeError, path);
    };

    it('refuses ../ paths and absolute paths outside', async () => {
      await refused('..');
      await refused('../outside');
      await refused(outside);
      await refused('/etc');
    });

    it('refuses a symlink or dangling symlink that points outside as the search path', async () => {
      await refused('secret-link.txt');
      await refused('outside-dir');
      await refused('dangling-link.txt');
    });

    it('never reads or lists through links that lead out while walking', async () => {
      const content = await search({ pattern: 'secret' });
      assert.doesNotMatch(content.content, /outside secret/);
      const names = await search({ pattern: '*', target: 'files' });
      assert.doesNotMatch(names.content, /secret-link|outside-dir|dangling-link/);
      // a link to a file inside the workspace is searched under its own name
      assert.match(names.content, /^readme-link\.md$/m);
    });
  });

  it('stops when the call is cancelled', async () => {
    const controller = new AbortController();
    controller.abort(new Error('turn stopped'));
    await assert.rejects(search({ pattern: 'TODO' }, { ...ctx, signal: controller.signal }), /turn stopped/);
  });

  it('heartbeats while walking a large tree', async () => {
    const big = realpathSync(mkdtempSync(join(tmpdir(), 'herald-search-many-')));
    try {
      for (let d = 0; d < 12; d++) {
        mkdirSync(join(big, `d${d}`));
        for (let f = 0; f < 100; f++) writeFileSync(join(big, `d${d}`, `f${f}.txt`), 'needle\n');
      }
      let beats = 0;
      const r = await search(
        { pattern: 'needle', max_results: 1000 },
        { ...ctx, cwd: big, heartbeat: () => void beats++ },
      );
      assert.ok(beats >= 2, `heartbeats: ${beats}`);
      assert.match(r.content, /\[results capped at 1000; narrow the search with path or glob\]$/);
    } finally {
      rmSync(big, { recursive: true, force: true });
    }
  });

  it('describes itself for the model and the batch planner', () => {
    assert.equal(searchFilesTool.name, 'search_files');
    assert.equal(searchFilesTool.toolset, 'file');
    assert.deepEqual(searchFilesTool.traits, { readOnly: true, pathScoped: true, serial: false });
    assert.deepEqual(searchFilesTool.paths!({ pattern: 'x' }), ['.']);
    assert.deepEqual(searchFilesTool.paths!({ pattern: 'x', path: 'src' }), ['src']);
    assert.equal(searchFilesTool.summarize!({ pattern: 'TODO', path: 'src' }), 'search_files: TODO in src');
    assert.equal(searchFilesTool.summarize!({ pattern: '*.ts', target: 'files' }), 'search_files: files *.ts');
  });
});
