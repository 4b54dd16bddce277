/**
 * The chat's smaller commands and the links that answer "who needs me": answering an approval
 * with a reason for a deny, slash-command completion, `/diff` of the last turn's edits, the
 * spinner counting the turn's time, a stop before the turn started hiding that turn's text, and
 * the Web UI link filtered to the conversations waiting for a person.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseApprovalAnswer } from '../../client/approval-input.js';
import { slashCompleter } from '../../client/chat-completion.js';
import { renderTurnDiffs } from '../../client/chat-diff.js';
import { HELP_LINES } from '../../client/chat-commands.js';
import type { StoredEvent } from '../../client/events.js';
import { EventRenderer } from '../../client/render.js';
import { needsYouLine } from '../../client/sessions-table.js';
import { MAX_DENY_REASON_CHARS } from '../../common/contract.js';
import { NEEDS_PERSON_QUERY, needsPersonUrl } from '../../shared/needs-person.js';
import { webUiLines } from '../../workers/dev-banner.js';

// eslint-disable-next-line no-control-regex
const plain = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');

let seq = 0;
const event = (
  kind: StoredEvent['kind'],
  payload: Record<string, unknown>,
  turn = 't1',
  at = new Date(),
): StoredEvent => ({
  conversation_id: 'c',
  seq: ++seq,
  kind,
  turn_id: turn,
  payload,
  created_at: at,
});

/** What `fn` writes to stdout. */
function stdoutOf(fn: () => void): string {
  const write = process.stdout.write.bind(process.stdout);
  let out = '';
  process.stdout.write = (chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  };
  try {
    fn();
  } finally {
    process.stdout.write = write;
  }
  return out;
}

describe('approval answers', () => {
  it('read a decision, and a deny with the reason the model is told', () => {
    assert.deepEqual(parseApprovalAnswer('o'), { decision: 'once' });
    assert.deepEqual(parseApprovalAnswer('always rule'), { decision: 'always', scope: 'rule' });
    assert.deepEqual(parseApprovalAnswer(' d '), { decision: 'deny' });
    assert.deepEqual(parseApprovalAnswer('d use the test database instead'), {
      decision: 'deny',
      reason: 'use the test database instead',
    });
    assert.deepEqual(parseApprovalAnswer('deny   Not on  main'), { decision: 'deny', reason: 'Not on  main' });
    assert.equal(parseApprovalAnswer('sure thing'), undefined);
    assert.equal(parseApprovalAnswer('o please'), undefined, 'only a deny takes words after it');
    assert.equal(parseApprovalAnswer(`d ${'x'.repeat(2000)}`)!.reason!.length, MAX_DENY_REASON_CHARS);
  });
});

describe('slash-command completion', () => {
  const complete = slashCompleter(HELP_LINES.map(([c]) => c.split(' ')[0]!).filter((c) => c.startsWith('/')));

  it('completes a command from its first letters, and lists the candidates when several match', () => {
    assert.deepEqual(complete('/cl'), [['/clear'], '/cl']);
    assert.deepEqual(complete('/st'), [['/status', '/steer', '/stop'], '/st']);
    assert.deepEqual(complete('/di'), [['/diff'], '/di']);
  });

  it('leaves messages and command arguments alone', () => {
    assert.deepEqual(complete('fix the st'), [[], 'fix the st']);
    assert.deepEqual(complete('/model gp'), [[], '/model gp']);
  });
});

describe('/diff', () => {
  it("shows each edit of the last turn under its call's summary, and says when there is none", () => {
    const out = plain(
      renderTurnDiffs([
        event('tool.started', { id: 'a', name: 'patch', summary: 'patch: app.py' }),
        event('tool.completed', {
          id: 'a',
          name: 'patch',
          diff: '--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-a - b\n+a + b',
        }),
        event('tool.completed', { id: 'b', name: 'terminal', outputTail: 'ok', exitCode: 0 }),
        event('tool.completed', { id: 'c', name: 'write_file', notRun: 'denied', diff: '+x' }),
      ]),
    );
    assert.equal(out, 'patch: app.py\n  @@ -1 +1 @@\n  -a - b\n  +a + b');
    assert.match(renderTurnDiffs([event('tool.completed', { id: 'b', name: 'terminal' })]), /no file edits/);
  });
});

describe('the chat renderer', () => {
  it("the spinner counts the turn's seconds, not the latest step's", () => {
    const r = new EventRenderer({ reasoning: false, spinner: true });
    try {
      r.beginTurn(Date.now() - 7_000);
      r.startSpinner('thinking');
      r.stopSpinner();
      r.startSpinner('running terminal');
      assert.match(plain(r.spinnerStatus!), /^running terminal… 7s/);
    } finally {
      r.stopSpinner();
    }
  });

  it('a turn stopped before its first event shows none of its text', () => {
    const r = new EventRenderer({ reasoning: false, spinner: false, onTurnEnded: () => {} });
    const out = stdoutOf(() => {
      r.render(event('turn.started', {}, 'old'));
      r.render(event('turn.ended', {}, 'old'));
      r.beginTurn();
      r.mute();
      r.render(event('turn.started', {}, 'new'));
      r.render(event('text.delta', { text: 'half a sen' }, 'new'));
      r.render(event('turn.ended', {}, 'new'));
      r.beginTurn();
      r.render(event('turn.started', {}, 'next'));
      r.render(event('text.delta', { text: 'The next reply.' }, 'next'));
    });
    assert.equal(out, 'The next reply.');
  });

  it("prompts for a child agent's approval request like for its own, naming the child", () => {
    const asked: Array<{ requestId: string }> = [];
    const r = new EventRenderer({
      reasoning: false,
      spinner: false,
      oneStream: true,
      onApproval: (q) => asked.push(q),
    });
    const out = plain(
      stdoutOf(() =>
        r.render(
          event('approval.requested', {
            requestId: 'p.d1-2-0:1:call_1',
            child: 'p.d1-2-0',
            command: 'rm -rf reports',
            reason: 'recursive delete',
            rules: ['recursive_delete'],
            timeoutSeconds: 300,
          }),
        ),
      ),
    );
    assert.match(out, /⚠ approval needed by child agent p\.d1-2-0 \(recursive delete\):\n {4}rm -rf reports\n/);
    assert.match(out, /request p\.d1-2-0:1:call_1\)/);
    assert.deepEqual(
      asked.map((q) => q.requestId),
      ['p.d1-2-0:1:call_1'],
    );
  });
});

describe('who needs me', () => {
  it('links the Web UI list filtered to the conversations waiting for a person', () => {
    assert.equal(
      NEEDS_PERSON_QUERY,
      'ExecutionStatus="Running" AND HeraldStatus IN ("awaiting_approval", "awaiting_clarify", "failed")',
    );
    const url = needsPersonUrl('http://127.0.0.1:8233/', 'default');
    assert.ok(url.startsWith('http://127.0.0.1:8233/namespaces/default/workflows?query='), url);
    assert.equal(new URL(url).searchParams.get('query'), NEEDS_PERSON_QUERY);
    assert.deepEqual(webUiLines('http://127.0.0.1:8233', 'default'), [
      'Web UI:    http://127.0.0.1:8233',
      `Needs you: ${url.replace('8233//', '8233/')}`,
    ]);
    assert.deepEqual(webUiLines(undefined, 'default'), []);
  });

  it('herald sessions counts the listed conversations waiting for a reply', () => {
    const line = needsYouLine(['idle', 'awaiting_approval', 'awaiting_clarify', 'ended'], 'http://ui', 'ns')!;
    assert.match(
      line,
      /^2 listed conversation\(s\) wait for your reply · needs you .* http:\/\/ui\/namespaces\/ns\/workflows\?query=/,
    );
    assert.equal(needsYouLine(['idle'], undefined, 'ns'), undefined);
  });
});
