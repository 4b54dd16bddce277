/** `read_file`: numbered lines, paging through long files, and clear errors for what it cannot show. */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readFileTool } from '../../activities/tools/read-file.js';
import type { ToolContext } from '../../activities/tools/registry.js';
import { WorkspaceEscapeError } from '../../workspace-files/confine.js';
import { toolContext } from '../support/tool-context.js';

describe('read_file', () => {
  let ws: string;
  let ctx: ToolContext;
  before(() => {
    ws = realpathSync(mkdtempSync(join(tmpdir(), 'herald-read-')));
    ctx = toolContext(ws);
    writeFileSync(join(ws, 'notes.txt'), 'alpha\nbeta\ngamma\n');
    writeFileSync(join(ws, 'long.txt'), Array.from({ length: 1200 }, (_, i) => `line ${i + 1}`).join('\n'));
    writeFileSync(
      join(ws, 'image.png'),
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d]),
    );
    writeFileSync(join(ws, 'wide.txt'), `${'w'.repeat(5000)}\nshort\n`);
    writeFileSync(join(ws, 'empty.txt'), '');
    mkdirSync(join(ws, 'src'));
  });
  after(() => {
    rmSync(ws, { recursive: true, force: true });
  });

  const read = (args: { path: string; offset?: number; limit?: number }) => readFileTool.handler(args, ctx);

  it('returns the file with line numbers', async () => {
    assert.deepEqual(await read({ path: 'notes.txt' }), { content: '1\talpha\n2\tbeta\n3\tgamma' });
  });

  it('starts at the requested line', async () => {
    const r = await read({ path: 'notes.txt', offset: 2 });
    assert.equal(r.content, '2\tbeta\n3\tgamma');
  });

  it('reads a small file to its end even when asked for one line (small models guess the rest)', async () => {
    const r = await read({ path: 'notes.txt', offset: 1, limit: 1 });
    assert.equal(r.content, '[read to the end: the file is small (3 lines)]\n1\talpha\n2\tbeta\n3\tgamma');
  });

  it('pages long files and says how to read on', async () => {
    const first = await read({ path: 'long.txt' });
    assert.equal(first.isError, undefined);
    const lines = first.content.split('\n');
    assert.match(lines[0]!, /^\s*1\tline 1$/);
    assert.match(lines[499]!, /^\s*500\tline 500$/);
    assert.equal(lines[500], '[long.txt: lines 1-500 of 1200; read on with offset 501]');

    const middle = await read({ path: 'long.txt', offset: 501, limit: 100 });
    assert.match(middle.content, /^\s*501\tline 501\n/);
    assert.match(middle.content, /\n\s*600\tline 600\n\[long\.txt: lines 501-600 of 1200; read on with offset 601\]$/);

    const last = await read({ path: 'long.txt', offset: 1101, limit: 500 });
    assert.match(last.content, /1200\tline 1200$/);
    assert.doesNotMatch(last.content, /read on/);
  });

  it('refuses an offset past the end of the file', async () => {
    const r = await read({ path: 'notes.txt', offset: 10 });
    assert.equal(r.isError, true);
    assert.match(r.content, /has 3 lines; offset 10 is past the end/);
  });

  it('cuts very long lines', async () => {
    const r = await read({ path: 'wide.txt' });
    const [first, second] = r.content.split('\n');
    assert.equal(first, `1\t${'w'.repeat(2000)}… [line truncated]`);
    assert.equal(second, '2\tshort');
  });

  it('does not dump binary files', async () => {
    const r = await read({ path: 'image.png' });
    assert.equal(r.isError, true);
    assert.equal(r.content, 'image.png looks like a binary file (12 bytes); not shown');
  });

  it('reports a directory', async () => {
    const r = await read({ path: 'src' });
    assert.equal(r.isError, true);
    assert.match(r.content, /src is a directory/);
  });

  it('reports a missing file', async () => {
    assert.deepEqual(await read({ path: 'nope.txt' }), { content: 'File not found: nope.txt', isError: true });
  });

  it('refuses paths outside the workspace', async () => {
    await assert.rejects(read({ path: '../../etc/passwd' }), WorkspaceEscapeError);
  });

  it('says a file is empty instead of showing a blank line 1', async () => {
    const r = await read({ path: 'empty.txt' });
    assert.notEqual(r.isError, true);
    assert.match(r.content, /^\(empty file/);
  });

  it('describes itself for the model and the batch planner', () => {
    assert.equal(readFileTool.name, 'read_file');
    assert.deepEqual(readFileTool.traits, { readOnly: true, pathScoped: true, serial: false });
    assert.deepEqual(readFileTool.paths!({ path: 'a/b.txt' }), ['a/b.txt']);
    assert.equal(readFileTool.summarize!({ path: 'a/b.txt', offset: 40 }), 'read_file: a/b.txt:40');
  });
});
