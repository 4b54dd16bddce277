/**
 * Checkpoints end to end (real sandbox, real Temporal and Postgres, the fake provider): a shell
 * command's deletions and rewrites are shown by the turn's diff and undone by a rewind; rewinding
 * 2 of 4 turns puts files and transcript back while the discarded turns stay readable; the user's
 * own `.git` is byte-for-byte unchanged; a file over the cap is reported; the `rewind` update is
 * driven from the real `temporal` CLI as docs/checkpoints.md shows it.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { TestStack } from '../support/stack.js';
import { createTestStack } from '../support/stack.js';
import { renderTurnDiff } from '../../client/turn-diff.js';
import { temporal } from '../support/temporal-cli.js';

/** Every file under a folder with its bytes and mode, for a byte-for-byte comparison. */
function snapshotOf(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, rel: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p, `${rel}${e.name}/`);
      else out[`${rel}${e.name}`] = `${readFileSync(p).toString('base64')}:${statSync(p).mode}`;
    }
  };
  walk(dir, '');
  return out;
}

const terminal = (command: string) => ({ toolCalls: [{ name: 'terminal', arguments: { command } }] });

describe('checkpoints', () => {
  let stack: TestStack;

  before(async () => {
    stack = await createTestStack({
      configYaml: [
        'approvals:',
        '  mode: "off"',
        'sandbox:',
        '  mode: required',
        'checkpoints:',
        '  maxFileMb: 0.01',
        '',
      ].join('\n'),
    });
  });
  after(async () => {
    await stack?.close();
  });

  const project = (name: string) => {
    const ws = join(stack.workspaces, name);
    mkdirSync(join(ws, 'src'), { recursive: true });
    writeFileSync(join(ws, 'src', 'app.py'), 'print("one")\nprint("two")\n');
    writeFileSync(join(ws, 'notes.txt'), 'keep me\n');
    writeFileSync(join(ws, '.gitignore'), 'cache/\n');
    const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: ws };
    execFileSync('git', ['init', '-q', ws], { env });
    execFileSync('git', ['-C', ws, 'add', '-A'], { env });
    execFileSync('git', ['-C', ws, '-c', 'user.name=u', '-c', 'user.email=u@u', 'commit', '-qm', 'init'], { env });
    return ws;
  };

  it("shows a shell command's deletions and rewrites, and undoes them, leaving the user's .git as it was", async () => {
    const ws = project('shell');
    const userGit = snapshotOf(join(ws, '.git'));
    stack.fake.script([
      terminal(
        'rm notes.txt && printf \'print("ONE")\\n\' > src/app.py && echo new > added.txt && mkdir -p cache && echo x > cache/c && head -c 20000 /dev/zero > big.bin',
      ),
      { text: 'Done.' },
    ]);
    const conv = stack.herald.conversation('cp-shell');
    const r = await conv.send('change things', { id: 'cp-shell-1', start: { cwd: ws } });
    assert.equal(r.final_response, 'Done.');
    assert.equal(existsSync(join(ws, 'notes.txt')), false);

    const diff = await conv.diff();
    assert.ok(diff, 'the turn has a checkpoint');
    assert.equal(diff.turn, 1);
    assert.deepEqual(
      { files: diff.files, added: diff.added, removed: diff.removed },
      { files: 3, added: 2, removed: 3 },
    );
    assert.match(diff.patch ?? '', /-keep me/);
    assert.match(diff.patch ?? '', /\+print\("ONE"\)/);
    assert.doesNotMatch(diff.patch ?? '', /cache\/c/);
    assert.match(diff.notes.join('\n'), /not snapshotted: big\.bin \(.*file cap\)/);
    assert.match(renderTurnDiff(diff), /turn 1: 3 files changed, \+2 −3/);
    const state = await conv.state();
    assert.deepEqual(state.last_changes, { turn: 1, files: 3, added: 2, removed: 3 });
    const events = await stack.events('cp-shell');
    assert.ok(events.some((e) => e.kind === 'status' && e.payload.kind === 'checkpoint' && e.payload.files === 3));

    const undo = await conv.rewind({ toTurn: 1 });
    assert.equal(undo.refused, undefined);
    assert.equal(readFileSync(join(ws, 'notes.txt'), 'utf8'), 'keep me\n');
    assert.equal(readFileSync(join(ws, 'src', 'app.py'), 'utf8'), 'print("one")\nprint("two")\n');
    assert.equal(existsSync(join(ws, 'added.txt')), false);
    // Ignored files and files over the cap are not Herald's to remove.
    assert.equal(readFileSync(join(ws, 'cache', 'c'), 'utf8'), 'x\n');
    assert.equal(statSync(join(ws, 'big.bin')).size, 20000);
    assert.deepEqual(snapshotOf(join(ws, '.git')), userGit);
  });

  it('rewinding 2 of 4 turns restores files and transcript; the discarded turns stay readable', async () => {
    const ws = project('four');
    const conv = stack.herald.conversation('cp-four');
    for (let t = 1; t <= 4; t++) {
      stack.fake.script([terminal(`echo turn${t} >> log.txt && echo ${t} > turn${t}.txt`), { text: `turn ${t} done` }]);
      await conv.send(`step ${t}`, { id: `cp-four-${t}`, start: { cwd: ws } });
    }
    assert.equal(readFileSync(join(ws, 'log.txt'), 'utf8'), 'turn1\nturn2\nturn3\nturn4\n');

    // A change made outside Herald refuses the rewind, naming it.
    writeFileSync(join(ws, 'notes.txt'), 'typed by the user\n');
    const refused = await conv.rewind({ toTurn: 3, conversation: true });
    assert.match(refused.refused ?? '', /changed outside Herald/);
    assert.deepEqual(refused.would_lose, ['notes.txt']);
    assert.equal(readFileSync(join(ws, 'log.txt'), 'utf8'), 'turn1\nturn2\nturn3\nturn4\n');

    const r = await conv.rewind({ toTurn: 3, conversation: true, force: true });
    assert.equal(r.refused, undefined);
    assert.ok(r.files?.saved_as, 'the discarded outside change was saved first');
    assert.equal(readFileSync(join(ws, 'log.txt'), 'utf8'), 'turn1\nturn2\n');
    assert.equal(existsSync(join(ws, 'turn3.txt')), false);
    assert.equal(existsSync(join(ws, 'turn2.txt')), true);
    assert.equal(readFileSync(join(ws, 'notes.txt'), 'utf8'), 'keep me\n');

    const users = (id: string) =>
      stack.transcript(id).then((ms) => ms.filter((m) => m.role === 'user').map((m) => m.content));
    const newSession = r.conversation!.session_id;
    assert.deepEqual(await users(newSession), ['step 1', 'step 2']);
    assert.deepEqual(await users(r.conversation!.previous_session_id), ['step 1', 'step 2', 'step 3', 'step 4']);

    // The conversation goes on from turn 2: the model sees neither turn 3 nor turn 4.
    stack.fake.script([{ text: 'again' }]);
    await conv.send('try another way', { id: 'cp-four-5' });
    const sent = JSON.stringify(stack.fake.requests.at(-1)!.body);
    assert.match(sent, /step 2/);
    assert.doesNotMatch(sent, /step 3|step 4/);
    assert.equal((await conv.state()).session_id, newSession);
    assert.equal((await conv.diff(4))?.files, 2);
  });

  it('a fork continues independently from turn 1, in a copy of the workspace as turn 1 left it', async () => {
    const ws = project('fork-source');
    const conv = stack.herald.conversation('cp-fork');
    for (let t = 1; t <= 2; t++) {
      stack.fake.script([terminal(`echo ${t} > turn${t}.txt && rm -f notes.txt`), { text: `turn ${t} done` }]);
      await conv.send(`fork step ${t}`, { id: `cp-fork-${t}`, start: { cwd: ws } });
    }
    const copy = join(stack.workspaces, 'fork-copy');
    const fork = await conv.fork({ atTurn: 1, cwd: copy, sessionId: 'cp-fork-b' });
    assert.equal(readFileSync(join(copy, 'turn1.txt'), 'utf8'), '1\n');
    assert.equal(existsSync(join(copy, 'turn2.txt')), false);
    assert.equal(existsSync(join(copy, 'notes.txt')), false);
    assert.equal(existsSync(join(copy, '.git')), false, "the user's repository is not copied");

    stack.fake.script([terminal('echo b > fork-only.txt'), { text: 'forked on' }]);
    const r = await fork.send('a different approach', { id: 'cp-fork-b-1' });
    assert.equal(r.final_response, 'forked on');
    const sent = JSON.stringify(stack.fake.requests.at(-2)!.body);
    assert.match(sent, /fork step 1/);
    assert.doesNotMatch(sent, /fork step 2/);
    assert.equal(existsSync(join(copy, 'fork-only.txt')), true);
    assert.equal(existsSync(join(ws, 'fork-only.txt')), false, 'the source workspace is untouched');
    assert.equal(existsSync(join(ws, 'turn2.txt')), true);
    assert.equal((await fork.diff())?.files, 1);
  });

  it('the rewind update works from the temporal CLI: refused with the reason, then files and transcript go back', async () => {
    const ws = project('cli');
    const conv = stack.herald.conversation('cp-cli');
    for (let t = 1; t <= 2; t++) {
      stack.fake.script([terminal(`echo ${t} > turn${t}.txt`), { text: `cli turn ${t} done` }]);
      await conv.send(`cli step ${t}`, { id: `cp-cli-${t}`, start: { cwd: ws } });
    }
    const update = (input: string) =>
      temporal(stack.temporalAddress, [
        'workflow',
        'update',
        'execute',
        '--workflow-id',
        'session-cp-cli',
        '--name',
        'rewind',
        '--input',
        input,
        '-o',
        'json',
      ]);
    const resultOf = (stdout: string) => {
      const printed = JSON.parse(stdout) as { result: Record<string, any> };
      return printed.result;
    };

    // Input the update's validator rejects never reaches the history: the CLI fails, naming the field.
    const invalid = await update('{"toTurn":0}');
    assert.notEqual(invalid.code, 0);
    assert.match(invalid.stderr, /toTurn/);

    // A file typed by the user since the last snapshot: refused, and the result says what would be lost.
    writeFileSync(join(ws, 'notes.txt'), 'typed by the user\n');
    const refused = await update('{"toTurn":2,"files":true,"conversation":true}');
    assert.equal(refused.code, 0, refused.stderr);
    assert.match(resultOf(refused.stdout).refused, /changed outside Herald/);
    assert.deepEqual(resultOf(refused.stdout).would_lose, ['notes.txt']);
    assert.equal(existsSync(join(ws, 'turn2.txt')), true);

    const done = await update('{"toTurn":2,"files":true,"conversation":true,"force":true}');
    assert.equal(done.code, 0, done.stderr);
    const r = resultOf(done.stdout);
    assert.equal(r.refused, undefined);
    assert.equal(r.to_turn, 2);
    assert.equal(r.files.files, 2, 'turn2.txt removed and notes.txt put back');
    assert.ok(r.files.saved_as, "the user's change was saved before it was discarded");
    assert.equal(existsSync(join(ws, 'turn2.txt')), false);
    assert.equal(readFileSync(join(ws, 'turn1.txt'), 'utf8'), '1\n');
    assert.equal(readFileSync(join(ws, 'notes.txt'), 'utf8'), 'keep me\n');
    const users = (id: string) =>
      stack.transcript(id).then((ms) => ms.filter((m) => m.role === 'user').map((m) => m.content));
    assert.deepEqual(await users(r.conversation.session_id), ['cli step 1']);
    assert.deepEqual(await users(r.conversation.previous_session_id), ['cli step 1', 'cli step 2']);
  });
});
