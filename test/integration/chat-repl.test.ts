/**
 * `herald chat` in a real terminal (tmux): the real CLI against a real stack and the fake provider,
 * driven by keystrokes and read back from the screen — approvals and Ctrl-C, /stop while a reply
 * streams, resume (the last turns shown; an ended session refused, then reopened on request),
 * Ctrl-C twice to exit with the resume command, markdown, tool lines with exit codes and diffs.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { HERALD_BIN } from '../support/processes.js';
import type { TestStack } from '../support/stack.js';
import { createTestStack, eventually } from '../support/stack.js';
import type { Terminal } from '../support/tmux.js';
import { openTerminal } from '../support/tmux.js';

describe('herald chat in a terminal', () => {
  let stack: TestStack;
  let ws: string;
  const terminals: Terminal[] = [];
  before(async () => {
    stack = await createTestStack();
    ws = join(stack.workspaces, 'ws');
    mkdirSync(ws, { recursive: true });
  });
  after(async () => {
    for (const t of terminals) t.close();
    await stack.close();
  });
  beforeEach(() => {
    stack.fake.reset();
  });

  const chat = (...args: string[]): Terminal => {
    const t = openTerminal([process.execPath, HERALD_BIN, 'chat', '--cwd', ws, ...args], stack.workerEnv(), ws);
    terminals.push(t);
    return t;
  };
  const sessionOf = async (t: Terminal): Promise<string> => {
    const screen = await t.waitFor(/session (\S+) · /, 30_000, 'the session banner');
    return /session (\S+) · /.exec(screen)![1]!;
  };
  /** The REPL is idle: the status line was printed and the prompt is back. */
  const idle = (t: Terminal, count = 1) =>
    eventually(() => (t.screen().match(/── \S+ · fake-model · ctx/g)?.length ?? 0) >= count, 30_000);

  it('after Ctrl-C at an approval prompt, the prompt takes input again', async () => {
    mkdirSync(join(ws, 'reports'), { recursive: true });
    stack.fake.script([
      { toolCalls: [{ name: 'terminal', arguments: { command: 'rm -rf reports && echo removed' } }] },
      { text: 'Hello **friend**, all *fine*.' },
    ]);
    const t = chat();
    await sessionOf(t);
    t.type('clean the build', true);
    await t.waitFor('approve ›', 30_000, 'the approval prompt');
    t.keys('C-c');
    await t.waitFor('[stopped', 30_000, 'the stopped footer');
    await idle(t);
    assert.ok(existsSync(join(ws, 'reports')), 'the command did not run');
    t.type('say hello', true);
    const screen = await t.waitFor('Hello friend, all fine.', 30_000, 'the rendered reply');
    // Markdown rendered: no asterisks left.
    assert.doesNotMatch(screen, /\*\*friend\*\*/);
    assert.doesNotMatch(screen.split('say hello')[1]!, /approve ›/);
    await idle(t, 2);
  });

  it('/stop during a streaming reply: nothing of the turn after the stop notice; the footer says stopped', async () => {
    const words = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
    stack.fake.script([
      {
        text: `First paragraph STREAMED-START.\n\nSecond ${words} LATE-MARKER.\n\nThird paragraph.`,
        chunkChars: 6,
        chunkDelayMs: 120,
      },
      { text: 'after the stop' },
    ]);
    const t = chat();
    await sessionOf(t);
    t.type('write a lot', true);
    await t.waitFor('STREAMED-START', 30_000, 'the first streamed block');
    t.type('/stop', true);
    await t.waitFor('stopping the turn', 10_000);
    const footer = await t.waitFor(/\[stopped[^\]]*\]/, 30_000, 'the stopped footer');
    assert.match(footer, /\[stopped · 1 call \(1 cancelled\)/);
    await idle(t);
    // The fake would have sent the rest by now; a late fragment would show it.
    await eventually(() => stack.fake.requests[0]?.abortedAt !== undefined || stack.fake.requests[0]?.completedAt);
    t.type('next', true);
    await t.waitFor('after the stop', 30_000);
    const screen = t.screen();
    assert.doesNotMatch(screen, /LATE-MARKER|Third paragraph/);
    const afterStop = screen.slice(screen.indexOf('stopping the turn'));
    assert.doesNotMatch(afterStop.split('[stopped')[0]!, /word\d/);
  });

  it('a tool line shows the exit code and output; an edit shows its diff', async () => {
    stack.fake.script([
      {
        toolCalls: [
          { name: 'terminal', arguments: { command: 'echo tool-output-line; exit 3' } },
          { name: 'write_file', arguments: { path: 'notes.txt', content: 'alpha\nbeta\n' } },
        ],
      },
      { text: 'Done.' },
    ]);
    const t = chat();
    await sessionOf(t);
    t.type('run it', true);
    const screen = await t.waitFor('Done.', 60_000);
    assert.match(screen, /✗ terminal \d+\.\ds · exit 3/);
    assert.match(screen, /│ tool-output-line/);
    assert.match(screen, /\+alpha\s*\n\s*\+beta/);
  });

  it('a call the loop guard answered without running shows as not run, with what it was and why, never as ✓', async () => {
    writeFileSync(join(ws, 'notes.txt'), 'alpha\nbeta\n');
    const read = { toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] };
    stack.fake.script([read, read, read, { text: 'Read it.' }]);
    const t = chat();
    await sessionOf(t);
    t.type('read notes.txt', true);
    const screen = await t.waitFor('Read it.', 60_000);
    assert.match(screen, /⊘ read_file: notes\.txt not run · same call, nothing changed since/);
    assert.equal(screen.match(/✓ read_file/g)?.length, 2, 'the two reads that ran');
  });

  it('Ctrl-C twice at an idle prompt exits with the resume command; resume shows the last turns', async () => {
    stack.fake.script([{ text: 'The first answer.' }]);
    const t = chat();
    const id = await sessionOf(t);
    t.type('the first question', true);
    await t.waitFor('The first answer.');
    await idle(t);
    t.keys('C-c');
    await t.waitFor('press Ctrl-C again to exit');
    t.keys('C-c');
    await t.waitFor(`resume this session with: herald chat --resume ${id}`);
    await eventually(() => t.exited());
    assert.equal(t.screen().match(/resume this session with:/g)?.length, 1, 'the resume line, once');
    assert.match(readFileSync(join(stack.home, 'chat_history'), 'utf8'), /the first question/);

    stack.fake.script([{ text: 'The second answer.' }]);
    const again = chat('--resume', id);
    const shown = await again.waitFor('the last exchanges ──', 30_000);
    assert.match(shown, /› the first question/);
    assert.match(shown, /The first answer\./);
    again.type('a second question', true);
    await again.waitFor('The second answer.');
    again.keys('C-d');
    await again.waitFor(`resume this session with: herald chat --resume ${id}`);
    await eventually(() => again.exited());
    assert.equal(again.screen().match(/resume this session with:/g)?.length, 1, 'the resume line, once');
  });

  it('resuming an ended session is refused, and --reopen goes on with its messages', async () => {
    stack.fake.script([{ text: 'Noted: the code word is PLUM.' }]);
    const t = chat();
    const id = await sessionOf(t);
    t.type('remember PLUM', true);
    await t.waitFor('the code word is PLUM');
    await idle(t);
    t.type('/quit', true);
    await eventually(() => t.exited());
    await stack.herald.conversation(id).end('user');
    await eventually(async () => (await stack.herald.conversation(id).handle.describe()).status.name !== 'RUNNING');

    const refused = chat('--resume', id);
    const screen = await refused.waitFor('[exited 1]', 30_000, 'the refusal');
    assert.match(screen, new RegExp(`session ${id} ended on \\d{4}-\\d\\d-\\d\\d`));
    assert.match(screen, new RegExp(`herald chat --resume ${id} --reopen`));

    stack.fake.script([{ text: 'Yes: PLUM.' }]);
    const reopened = chat('--resume', id, '--reopen');
    await reopened.waitFor('your next message starts it again');
    reopened.type('what was the word?', true);
    await reopened.waitFor('Yes: PLUM.');
    const sent = JSON.stringify(stack.fake.requests.at(-1)!.body.messages);
    assert.match(sent, /remember PLUM/, 'the reopened session carries its earlier messages');
    // It goes on from the first run's totals and turn number, not from zero.
    const state = await eventually(async () => {
      const s = await stack.herald.conversation(id).state();
      return s.status === 'idle' && s.turn === 2 ? s : undefined;
    });
    assert.ok(
      state.usage.total_tokens > (state.last_result?.usage.turn.total_tokens ?? 0),
      'session usage includes turn 1',
    );
    const row = await stack.db.query<{ api_calls: number }>('SELECT api_calls FROM sessions WHERE id = $1', [id]);
    assert.equal(row.rows[0]!.api_calls, 2, 'the stored total counts both runs');
  });

  it('/help lists every command; a message typed during a turn is echoed after › with what it does', async () => {
    stack.fake.script([
      { text: `Slow reply ${'la '.repeat(80)}end.`, chunkChars: 6, chunkDelayMs: 80 },
      { text: 'Second reply.' },
    ]);
    const t = chat();
    await sessionOf(t);
    t.type('/help', true);
    const help = await t.waitFor('/resume <id|title> [--reopen]');
    for (const c of ['/stop', '/steer', '/approve', '/compress', '/usage', '/status', '/model', '/new', '/quit'])
      assert.match(help, new RegExp(`^\\s+${c.replace('/', '\\/')}\\b`, 'm'));
    t.type('first', true);
    await eventually(() => (stack.fake.requests.length >= 1 ? true : undefined));
    t.type('typed meanwhile', true);
    await t.waitFor('› typed meanwhile  (interrupts the running turn and runs next)');
    await t.waitFor('Second reply.');
  });

  it("Tab completes /diff, which shows what the last turn changed; /clear starts a new session and prints the old one's resume line", async () => {
    stack.fake.script([
      { toolCalls: [{ name: 'write_file', arguments: { path: 'clear-me.txt', content: 'gamma\ndelta\n' } }] },
      { text: 'Wrote it.' },
    ]);
    const t = chat();
    const id = await sessionOf(t);
    t.type('write the file', true);
    await t.waitFor('Wrote it.', 60_000);
    await idle(t);
    t.type('/di');
    t.keys('Tab');
    await t.waitFor('› /diff');
    t.keys('Enter');
    const shown = await t.waitFor(/turn 1: 1 file changed, \+2 −0/, 10_000, "the turn's diff and summary");
    assert.match(shown, /\+\+\+ b\/clear-me\.txt/);
    assert.match(shown, /\+gamma\s*\n\s*\+delta/);
    t.type('/clear', true);
    const cleared = await t.waitFor(/new session (\S+)/, 10_000);
    assert.match(cleared, new RegExp(`previous session: herald chat --resume ${id}`));
    assert.notEqual(/new session (\S+)/.exec(cleared)![1], id);
  });

  it('/model switches the conversation in place: the same session, the next request on the new model', async () => {
    stack.fake.script([{ text: 'On the first model.' }, { text: 'On the second model.' }]);
    const t = chat();
    const session = await sessionOf(t);
    t.type('hello', true);
    await t.waitFor('On the first model.');
    await idle(t);
    t.type('/model other-model', true);
    await t.waitFor(/model: other-model via custom from the next message; was fake-model/);
    t.type('and now?', true);
    await t.waitFor('On the second model.');
    assert.equal(stack.fake.requests.at(-1)!.body.model, 'other-model');
    assert.equal(t.screen().match(/session \S+ · /g)?.length, 1, 'no new session was started');
    const state = await stack.herald.conversation(session).state();
    assert.equal(state.session_id, session);
    assert.equal(state.model, 'other-model');
  });
});
