/**
 * `write_file`: creates or replaces whole files inside the workspace only, atomically (a reader
 * sees the old content or the new, never a mix, and no temporary file is left behind).
 */
import assert from 'node:assert/strict';
import {
  chmodSync,
  existsSync,
  lstatSync,
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
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ToolContext } from '../../activities/tools/registry.js';
import { shortHash } from '../../shared/short-hash.js';
import { WorkspaceEscapeError } from '../../workspace-files/confine.js';
import { countLines, writeFileTool } from '../../activities/tools/write-file.js';
import { toolContext } from '../support/tool-context.js';

describe('write_file', () => {
  let base: string;
  let ws: string;
  let outside: string;
  let ctx: ToolContext;
  before(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'herald-write-')));
    ws = join(base, 'ws');
    outside = join(base, 'outside');
    mkdirSync(join(ws, 'src'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(join(outside, 'secret.txt'), 'secret');
    symlinkSync(join(outside, 'secret.txt'), join(ws, 'secret-link'));
    symlinkSync(outside, join(ws, 'outside-dir'));
    symlinkSync(join(outside, 'not-yet.txt'), join(ws, 'dangling-link'));
    ctx = toolContext(ws);
  });
  after(() => {
    rmSync(base, { recursive: true, force: true });
  });

  const write = (path: string, content: string) => writeFileTool.handler({ path, content }, ctx);
  const tempFiles = (dir: string) => readdirSync(dir).filter((n) => n.endsWith('.tmp'));

  it('creates a new file and its missing parent directories', async () => {
    const r = await write('new/deeper/file.txt', 'one\ntwo\n');
    assert.deepEqual(r, {
      content: 'Wrote 8 bytes (2 lines) to new/deeper/file.txt; created a new file',
      // For the human only (the event side channel): what the edit did.
      display: { diff: '--- /dev/null\n+++ b/new/deeper/file.txt\n@@ -0,0 +1,2 @@\n+one\n+two' },
      // For the loop guard: the file as it now is (path and content, hashed).
      fileState: shortHash(`${join(realpathSync(ws), 'new', 'deeper', 'file.txt')}\u0000one\ntwo\n`),
    });
    assert.equal(readFileSync(join(ws, 'new', 'deeper', 'file.txt'), 'utf8'), 'one\ntwo\n');
  });

  it('replaces an existing file and says so', async () => {
    writeFileSync(join(ws, 'src', 'a.txt'), 'old content');
    const r = await write('src/a.txt', 'new');
    assert.deepEqual(r, {
      content: 'Wrote 3 bytes (1 line) to src/a.txt; replaced the existing file (was 11 bytes)',
      display: { diff: '--- a/src/a.txt\n+++ b/src/a.txt\n@@ -1,1 +1,1 @@\n-old content\n+new' },
      fileState: shortHash(`${join(realpathSync(ws), 'src', 'a.txt')}\u0000new`),
    });
    assert.equal(readFileSync(join(ws, 'src', 'a.txt'), 'utf8'), 'new');
    assert.deepEqual(tempFiles(join(ws, 'src')), []);
  });

  it('counts bytes in UTF-8 and lines as an editor does', async () => {
    const r = await write('unicode.txt', 'héllo ✓');
    assert.match(r.content, /^Wrote 10 bytes \(1 line\) to unicode\.txt/);
    assert.match((await write('empty.txt', '')).content, /^Wrote 0 bytes \(0 lines\)/);
    assert.equal(countLines('a\nb'), 2);
    assert.equal(countLines('a\nb\n'), 2);
    assert.equal(countLines('\n'), 1);
  });

  it('keeps the permissions of the file it replaces', async () => {
    const script = join(ws, 'run.sh');
    writeFileSync(script, '#!/bin/sh\necho old\n');
    chmodSync(script, 0o755);
    await write('run.sh', '#!/bin/sh\necho new\n');
    assert.equal(statSync(script).mode & 0o777, 0o755);
    assert.equal(readFileSync(script, 'utf8'), '#!/bin/sh\necho new\n');
  });

  it('writes through a symlink that stays inside the workspace, keeping the link', async () => {
    writeFileSync(join(ws, 'target.txt'), 'before');
    symlinkSync(join(ws, 'target.txt'), join(ws, 'inner-link'));
    const r = await write('inner-link', 'after');
    assert.match(r.content, /to target\.txt; replaced/);
    assert.ok(lstatSync(join(ws, 'inner-link')).isSymbolicLink());
    assert.equal(readFileSync(join(ws, 'target.txt'), 'utf8'), 'after');
  });

  it('refuses to write over a directory', async () => {
    const r = await write('src', 'x');
    assert.deepEqual(r, { content: 'src is a directory, not a file', isError: true });
    assert.ok(statSync(join(ws, 'src')).isDirectory());
  });

  it('reports a parent that is a file', async () => {
    writeFileSync(join(ws, 'plain.txt'), 'x');
    const r = await write('plain.txt/child.txt', 'y');
    assert.equal(r.isError, true);
    assert.equal(r.content, 'Cannot create plain.txt/child.txt: part of its parent path is a file, not a directory');
  });

  describe('confinement', () => {
    const refused = async (path: string) => {
      await assert.rejects(write(path, 'pwned'), WorkspaceEscapeError, path);
    };

    it('refuses ../ paths and creates nothing outside', async () => {
      await refused('../escaped.txt');
      await refused('src/../../outside/escaped.txt');
      assert.ok(!existsSync(join(base, 'escaped.txt')));
      assert.ok(!existsSync(join(outside, 'escaped.txt')));
    });

    it('refuses absolute paths outside the workspace', async () => {
      await refused(join(outside, 'abs.txt'));
      await refused('/tmp/herald-should-not-exist.txt');
      assert.ok(!existsSync(join(outside, 'abs.txt')));
    });

    it('refuses a symlink inside the workspace that points outside', async () => {
      await refused('secret-link');
      await refused('outside-dir/new.txt');
      assert.equal(readFileSync(join(outside, 'secret.txt'), 'utf8'), 'secret');
      assert.ok(!existsSync(join(outside, 'new.txt')));
    });

    it('refuses a dangling symlink that points outside', async () => {
      await refused('dangling-link');
      assert.ok(!existsSync(join(outside, 'not-yet.txt')));
    });

    it('leaves no temporary files anywhere', () => {
      assert.deepEqual(tempFiles(ws), []);
      assert.deepEqual(tempFiles(outside), []);
    });
  });

  it('replaces atomically: a concurrent reader sees the old or the new content, never a mix', async () => {
    const path = join(ws, 'big.txt');
    const contents = ['a', 'b', 'c', 'd'].map((c) => c.repeat(4 * 1024 * 1024));
    writeFileSync(path, contents[0]!);
    let writing = true;
    let reads = 0;
    const reader = (async () => {
      while (writing) {
        const seen = await readFile(path, 'utf8');
        reads++;
        assert.ok(
          contents.includes(seen),
          `read ${seen.length} chars starting ${JSON.stringify(seen.slice(0, 1))}: a partial write`,
        );
      }
    })();
    try {
      for (const content of contents.slice(1)) {
        const r = await write('big.txt', content);
        assert.match(r.content, /replaced the existing file/);
      }
    } finally {
      writing = false;
    }
    await reader;
    assert.ok(reads > 0);
    assert.equal(readFileSync(path, 'utf8'), contents[3]);
    assert.deepEqual(tempFiles(ws), []);
  });

  it('describes itself for the model and the batch planner', () => {
    assert.equal(writeFileTool.name, 'write_file');
    assert.equal(writeFileTool.toolset, 'file');
    assert.deepEqual(writeFileTool.traits, { readOnly: false, pathScoped: true, serial: false });
    assert.deepEqual(writeFileTool.paths!({ path: 'a/b.txt', content: '' }), ['a/b.txt']);
    assert.equal(writeFileTool.summarize!({ path: 'a/b.txt', content: 'x' }), 'write_file: a/b.txt');
    assert.equal(writeFileTool.parameters.safeParse({ path: 'a', content: 'x', extra: 1 }).success, false);
  });
});
