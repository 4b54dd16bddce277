/**
 * `patch`: exact-string edits that refuse to guess (zero or several matches are errors the model
 * can act on), write atomically, stay inside the workspace and show the changed lines.
 */
import assert from 'node:assert/strict';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { patchTool } from '../../activities/tools/patch.js';
import type { ToolContext } from '../../activities/tools/registry.js';
import { WorkspaceEscapeError } from '../../workspace-files/confine.js';
import { toolContext } from '../support/tool-context.js';

const SOURCE = [
  'function greet(name) {',
  '  const greeting = "hello";',
  '  return `${greeting} ${name}`;',
  '}',
  '',
  'function part() {',
  '  return 1;',
  '}',
  '',
  'function other() {',
  '  return 1;',
  '}',
  '',
].join('\n');

describe('patch', () => {
  let base: string;
  let ws: string;
  let outside: string;
  let ctx: ToolContext;
  before(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'herald-patch-')));
    ws = join(base, 'ws');
    outside = join(base, 'outside');
    mkdirSync(join(ws, 'src'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(join(outside, 'secret.txt'), 'secret value');
    symlinkSync(join(outside, 'secret.txt'), join(ws, 'secret-link'));
    symlinkSync(outside, join(ws, 'outside-dir'));
    symlinkSync(join(outside, 'not-yet.txt'), join(ws, 'dangling-link'));
    ctx = toolContext(ws);
  });
  beforeEach(() => {
    writeFileSync(join(ws, 'src', 'app.js'), SOURCE);
  });
  after(() => {
    rmSync(base, { recursive: true, force: true });
  });

  const patch = (args: { path?: string; old_string: string; new_string: string; replace_all?: boolean }) =>
    patchTool.handler({ path: 'src/app.js', ...args }, ctx);
  const app = () => readFileSync(join(ws, 'src', 'app.js'), 'utf8');
  const tempFiles = (dir: string) => readdirSync(dir).filter((n) => n.endsWith('.tmp'));

  it('replaces a unique match and shows the change with line numbers', async () => {
    const r = await patch({ old_string: '  const greeting = "hello";', new_string: '  const greeting = "hi";' });
    assert.equal(r.isError, undefined);
    assert.equal(
      r.content,
      [
        'Replaced 1 occurrence in src/app.js',
        '@@ -2,1 +2,1 @@',
        ' 1  function greet(name) {',
        '-2    const greeting = "hello";',
        '+2    const greeting = "hi";',
        ' 3    return `${greeting} ${name}`;',
        ' 4  }',
      ].join('\n'),
    );
    assert.equal(app(), SOURCE.replace('"hello"', '"hi"'));
    assert.deepEqual(tempFiles(join(ws, 'src')), []);
  });

  it('says the edit is already applied when the same call runs again (a retry after a crash)', async () => {
    const args = { old_string: '  const greeting = "hello";', new_string: '  const greeting = "hi";' };
    await patch(args);
    const again = await patch(args);
    assert.equal(again.isError, undefined);
    assert.match(again.content, /already contains new_string .* applied already/);
    assert.equal(app(), SOURCE.replace('"hello"', '"hi"'));
  });

  it('numbers added lines in the new file and removed lines in the old one', async () => {
    const r = await patch({
      old_string: 'function part() {\n  return 1;\n}\n',
      new_string: 'function part() {\n  // one\n  return 1;\n}\n',
    });
    const lines = r.content.split('\n');
    assert.equal(lines[1], '@@ -6,3 +6,4 @@');
    assert.deepEqual(lines.slice(2), [
      '  4  }',
      '  5  ',
      '- 6  function part() {',
      '- 7    return 1;',
      '- 8  }',
      '+ 6  function part() {',
      '+ 7    // one',
      '+ 8    return 1;',
      '+ 9  }',
      ' 10  ',
      ' 11  function other() {',
    ]);
  });

  it('shows a deletion of whole lines without + lines', async () => {
    const r = await patch({ old_string: 'function part() {\n  return 1;\n}\n\n', new_string: '' });
    const lines = r.content.split('\n');
    assert.equal(lines[1], '@@ -6,4 +6,0 @@');
    assert.ok(!lines.some((l) => l.startsWith('+')), r.content);
    assert.ok(lines.includes('  6  function other() {'), r.content);
    assert.ok(!app().includes('part'));
  });

  it('inserts new_string literally ($& and $1 are not replacement patterns)', async () => {
    await patch({ old_string: '"hello"', new_string: '"$& $1 $$"' });
    assert.ok(app().includes('const greeting = "$& $1 $$";'));
  });

  it('refuses several matches without replace_all, saying how many and where', async () => {
    const r = await patch({ old_string: '  return 1;', new_string: '  return 2;' });
    assert.equal(r.isError, true);
    assert.match(r.content, /old_string occurs 2 times in src\/app\.js \(at lines 7, 11\)/);
    assert.match(r.content, /more surrounding context/);
    assert.match(r.content, /replace_all/);
    assert.equal(app(), SOURCE, 'the file is untouched');
  });

  it('replaces every occurrence with replace_all', async () => {
    const r = await patch({ old_string: 'return 1;', new_string: 'return 2;', replace_all: true });
    assert.equal(r.isError, undefined);
    assert.match(r.content, /^Replaced 2 occurrences in src\/app\.js\n@@ -7,1 \+7,1 @@/);
    assert.match(r.content, /@@ -11,1 \+11,1 @@/);
    assert.equal(app(), SOURCE.replaceAll('return 1;', 'return 2;'));
  });

  it('says how many more replacements were not shown', async () => {
    writeFileSync(join(ws, 'src', 'many.txt'), 'x\n'.repeat(5));
    const r = await patchTool.handler(
      { path: 'src/many.txt', old_string: 'x', new_string: 'y', replace_all: true },
      ctx,
    );
    assert.match(r.content, /^Replaced 5 occurrences/);
    assert.equal(r.content.match(/^@@/gm)?.length, 3);
    assert.match(r.content, /… and 2 more$/);
    assert.equal(readFileSync(join(ws, 'src', 'many.txt'), 'utf8'), 'y\n'.repeat(5));
  });

  it('reports zero matches and points at an indentation difference', async () => {
    const r = await patch({
      old_string: 'function part() {\n    return 1;\n}',
      new_string: 'function part() {\n    return 3;\n}',
    });
    assert.equal(r.isError, true);
    assert.match(r.content, /^old_string was not found in src\/app\.js\./);
    assert.match(r.content, /matches lines 6-8 if whitespace is ignored/);
    assert.match(r.content, /7\t {2}return 1;/);
    assert.equal(app(), SOURCE);
  });

  it('hints at a single line whose spacing differs', async () => {
    const r = await patch({ old_string: 'const  greeting = "hello";', new_string: 'x' });
    assert.equal(r.isError, true);
    assert.match(r.content, /matches line 2 if whitespace is ignored/);
  });

  it('says when only the first line matches', async () => {
    const r = await patch({ old_string: 'function greet(name) {\n  return name;\n}', new_string: 'x' });
    assert.equal(r.isError, true);
    assert.match(r.content, /first line matches line 1 .*but the lines after it differ/);
  });

  it('reports zero matches plainly when nothing resembles old_string', async () => {
    const r = await patch({ old_string: 'no such text anywhere', new_string: 'x' });
    assert.deepEqual(r, {
      content:
        'old_string was not found in src/app.js. Re-read the file with read_file and copy the text exactly, including indentation.',
      isError: true,
    });
  });

  it('mentions CRLF line endings when they are why a match fails', async () => {
    writeFileSync(join(ws, 'src', 'dos.txt'), 'one\r\ntwo\r\n');
    const r = await patchTool.handler({ path: 'src/dos.txt', old_string: 'one\ntwo', new_string: 'x' }, ctx);
    assert.equal(r.isError, true);
    assert.match(r.content, /CRLF/);
  });

  it('refuses an empty old_string and a no-op edit', async () => {
    assert.deepEqual(await patch({ old_string: '', new_string: 'x' }), {
      content: 'old_string is empty; give the exact text to replace',
      isError: true,
    });
    const same = await patch({ old_string: 'part', new_string: 'part' });
    assert.equal(same.isError, true);
    assert.match(same.content, /identical/);
    assert.equal(app(), SOURCE);
  });

  it('reports a missing file, a directory and a binary file', async () => {
    const missing = await patch({ path: 'nope.js', old_string: 'a', new_string: 'b' });
    assert.equal(missing.isError, true);
    assert.match(missing.content, /^File not found: nope\.js/);
    const underFile = await patch({ path: 'src/app.js/x', old_string: 'a', new_string: 'b' });
    assert.match(underFile.content, /^File not found/);
    const dir = await patch({ path: 'src', old_string: 'a', new_string: 'b' });
    assert.deepEqual(dir, { content: 'src is a directory, not a file', isError: true });
    writeFileSync(join(ws, 'blob.bin'), Buffer.from([0x61, 0x00, 0x62]));
    const bin = await patch({ path: 'blob.bin', old_string: 'a', new_string: 'c' });
    assert.equal(bin.isError, true);
    assert.match(bin.content, /binary/);
  });

  it('refuses to round-trip a file that is not valid UTF-8', async () => {
    writeFileSync(join(ws, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    const r = await patch({ path: 'latin1.txt', old_string: 'caf', new_string: 'CAF' });
    assert.equal(r.isError, true);
    assert.match(r.content, /not valid UTF-8/);
    assert.deepEqual(readFileSync(join(ws, 'latin1.txt')), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
  });

  it('writes atomically, keeping permissions and leaving no temporary file', async () => {
    const script = join(ws, 'run.sh');
    writeFileSync(script, '#!/bin/sh\necho old\n');
    chmodSync(script, 0o750);
    const r = await patch({ path: 'run.sh', old_string: 'old', new_string: 'new' });
    assert.equal(r.isError, undefined);
    assert.equal(readFileSync(script, 'utf8'), '#!/bin/sh\necho new\n');
    assert.equal(statSync(script).mode & 0o777, 0o750);
    assert.deepEqual(tempFiles(ws), []);
  });

  describe('confinement', () => {
    const refused = async (path: string) => {
      await assert.rejects(patch({ path, old_string: 'secret', new_string: 'pwned' }), WorkspaceEscapeError, path);
    };

    it('refuses ../ paths', async () => {
      await refused('../outside/secret.txt');
      await refused('src/../../outside/secret.txt');
    });

    it('refuses absolute paths outside the workspace', async () => {
      await refused(join(outside, 'secret.txt'));
      await refused('/etc/hostname');
    });

    it('refuses a symlink inside the workspace that points outside', async () => {
      await refused('secret-link');
      await refused('outside-dir/secret.txt');
    });

    it('refuses a dangling symlink that points outside', async () => {
      await refused('dangling-link');
      assert.ok(!existsSync(join(outside, 'not-yet.txt')));
    });

    it('changed nothing outside', () => {
      assert.equal(readFileSync(join(outside, 'secret.txt'), 'utf8'), 'secret value');
      assert.deepEqual(readdirSync(outside), ['secret.txt']);
    });
  });

  it('describes itself for the model and the batch planner', () => {
    assert.equal(patchTool.name, 'patch');
    assert.equal(patchTool.toolset, 'file');
    assert.deepEqual(patchTool.traits, { readOnly: false, pathScoped: true, serial: false });
    assert.deepEqual(patchTool.paths!({ path: 'a.ts', old_string: 'x', new_string: 'y' }), ['a.ts']);
    assert.equal(patchTool.summarize!({ path: 'a.ts', old_string: 'x', new_string: 'y' }), 'patch: a.ts');
  });
});
