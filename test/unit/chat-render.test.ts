/**
 * The REPL's pure renderers: markdown (whole and streamed block by block), edit diffs (bounded,
 * coloured), tool lines, the status line, resumed transcripts, multi-line input and the history file.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { MAX_DIFF_LINES, editDiff, outputTail } from '../../activities/tools/tool-display.js';
import { renderDiff } from '../../client/diff-view.js';
import { HISTORY_FILE, InputHistory, MAX_HISTORY, unsafeForHistory } from '../../client/history.js';
import { MarkdownStream, lastBlockBoundary, renderMarkdown } from '../../client/markdown.js';
import { MultilineInput } from '../../client/multiline.js';
import { contextPercent, shortCount, statusLine } from '../../client/status-line.js';
import { toolCompletedLines, unwrapPreview } from '../../client/tool-line.js';
import { lastExchanges, renderExchanges } from '../../client/transcript-view.js';
import { footerText } from '../../client/turn-footer.js';
import { Redactor } from '../../shared/redaction.js';
import { wrapUntrusted } from '../../shared/untrusted.js';
import type { ChatMessage } from '../../common/messages.js';
import type { TurnResult } from '../../common/contract.js';

// eslint-disable-next-line no-control-regex
const plain = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');

describe('markdown', () => {
  it('renders emphasis, code and lists without their markup', () => {
    const out = plain(renderMarkdown('Some **bold** and `code`.\n\n- one\n- two\n'));
    assert.match(out, /Some bold and code\./);
    assert.doesNotMatch(out, /\*\*|`/);
    assert.match(out, /\* one\n\s*\* two/);
    assert.ok(out.endsWith('\n') && !out.endsWith('\n\n'));
  });

  it('streams complete blocks only: a paragraph once the next has begun, a code block once closed', () => {
    const s = new MarkdownStream();
    assert.equal(s.push('Hello **wor'), '');
    assert.equal(s.push('ld**.\n\n'), '');
    assert.equal(s.push('Next para'), 'Hello **world**.\n\n');
    assert.equal(s.push('\n\n```js\nconst a = 1;\n\n'), 'Next para\n\n');
    assert.equal(s.push('const b = 2;\n```\n'), '```js\nconst a = 1;\n\nconst b = 2;\n```\n');
    assert.equal(s.push('tail'), '');
    assert.equal(s.end(), 'tail');
  });

  it('keeps a loose list together', () => {
    assert.equal(lastBlockBoundary('- a\n\n- b\n\n'), 0);
    assert.equal(lastBlockBoundary('1. a\n\n2. b\n'), 0);
    assert.equal(lastBlockBoundary('para\n\nnext line\n'), 'para\n\n'.length);
  });

  it('drops what it holds on reset (a retried model call)', () => {
    const s = new MarkdownStream();
    s.push('partial');
    s.reset();
    assert.equal(s.end(), '');
  });
});

describe('edit diffs', () => {
  it('is a unified diff of the change, a new file against nothing', () => {
    const d = editDiff('a.txt', 'one\ntwo\nthree\n', 'one\nTWO\nthree\n')!;
    assert.match(d, /^--- a\/a\.txt\n\+\+\+ b\/a\.txt\n@@ -1,3 \+1,3 @@\n one\n-two\n\+TWO\n three$/);
    assert.match(editDiff('n.txt', undefined, 'x\n')!, /^--- \/dev\/null/);
    assert.equal(editDiff('same', 'x', 'x'), undefined);
  });

  it('is bounded and says how much was left out', () => {
    const after = Array.from({ length: 500 }, (_, i) => `line ${i}`).join('\n');
    const d = editDiff('big.txt', undefined, after)!;
    const lines = d.split('\n');
    assert.equal(lines.length, MAX_DIFF_LINES + 1);
    assert.match(lines.at(-1)!, /^… \d+ more diff lines$/);
  });

  it('colours additions and removals and leaves out the file header', () => {
    const out = renderDiff('--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new');
    assert.doesNotMatch(plain(out), /---|\+\+\+/);
    assert.match(plain(out), /-old\n\s+\+new/);
  });

  it('keeps the tail of long command output', () => {
    const tail = outputTail(Array.from({ length: 50 }, (_, i) => `l${i}`).join('\n') + '\n\n');
    assert.equal(tail, 'l46\nl47\nl48\nl49');
  });
});

describe('tool lines', () => {
  it('show the exit code and the output tail', () => {
    const lines = toolCompletedLines({
      name: 'terminal',
      durationMs: 1234,
      isError: true,
      exitCode: 2,
      outputTail: 'a\nb\nno such file',
    }).map(plain);
    assert.equal(lines[0], '  ✗ terminal 1.2s · exit 2');
    assert.deepEqual(lines.slice(1), ['    │ a', '    │ b', '    │ no such file']);
  });

  it('show a diff for an edit and a cleaned preview otherwise', () => {
    const edit = toolCompletedLines({ name: 'patch', durationMs: 10, diff: '@@ -1 +1 @@\n-a\n+b' }).map(plain);
    assert.deepEqual(edit.slice(1).join('\n').split('\n'), ['    @@ -1 +1 @@', '    -a', '    +b']);
    const wrapped = wrapUntrusted('read_file', 'the file says hello, and a little more text', 'workspace');
    assert.equal(unwrapPreview(wrapped.replace(/\s+/g, ' ')), 'the file says hello, and a little more text');
    assert.match(plain(toolCompletedLines({ name: 'x', cancelled: true, durationMs: 0 })[0]!), /✗ x cancelled/);
  });

  it('show a call that did not run as not run, with what it was and why, never as ✓', () => {
    const lines = toolCompletedLines({
      name: 'read_file',
      summary: 'read_file: settings.ini',
      durationMs: 0,
      isError: false,
      notRun: 'repeat',
      preview: '[Not run again: read_file with these arguments already returned this result unchanged …]',
    }).map(plain);
    assert.equal(
      lines[0],
      '  ⊘ read_file: settings.ini not run · same call, nothing changed since: the earlier result stands',
    );
    assert.match(lines[1]!, /^ {4}│ \[Not run again: read_file/);
    for (const notRun of ['duplicate', 'refused', 'blocked', 'denied', 'something new']) {
      const head = plain(toolCompletedLines({ name: 'terminal', notRun, isError: notRun !== 'duplicate' })[0]!);
      assert.match(head, /^ {2}⊘ terminal not run · /, notRun);
      assert.doesNotMatch(head, /✓|✗/, notRun);
    }
    // An event from before the flag reads as it did.
    assert.match(plain(toolCompletedLines({ name: 'terminal', durationMs: 5 })[0]!), /✓ terminal/);
  });
});

describe('status line and footer', () => {
  it('shows session, model, context use and cost', () => {
    const line = statusLine(
      {
        sessionId: 's1',
        model: 'm',
        promptTokens: 64_000,
        contextWindow: 128_000,
        costUsd: 0.0123,
        totalTokens: 12_345,
      },
      false,
    );
    assert.equal(line, '── s1 · m · ctx 50% of 128k · 12k tokens · $0.01');
    assert.equal(contextPercent(0, 1000), 0);
    assert.equal(contextPercent(5000, 1000), 100);
    assert.equal(shortCount(1_500_000), '1.5M');
  });

  it('a stopped turn counts its calls from the ledger, cancelled ones included', () => {
    const r = { api_calls: 0, usage: { turn: { total_tokens: 0, cost_usd: 0 } } } as unknown as TurnResult;
    const out = plain(footerText(r, { calls: 2, cancelled: 1, failed: 0, tokens: 340, costUsd: 0 }, true));
    assert.equal(out, '[stopped · 2 calls (1 cancelled) · 340 tokens]');
    // Without the ledger (herald watch) a stopped turn's result counts no call: it says only that.
    assert.equal(plain(footerText(r, undefined, true)), '[stopped]');
  });
});

describe('resumed transcripts', () => {
  const msgs: ChatMessage[] = [
    { role: 'system', content: 'sys' },
    { role: 'user', content: 'q1' },
    { role: 'assistant', content: 'a1' },
    { role: 'user', content: 'q2' },
    {
      role: 'assistant',
      content: '',
      tool_calls: [{ id: 'c', type: 'function', function: { name: 'terminal', arguments: '{"command":"ls -la"}' } }],
    },
    { role: 'tool', content: 'file1 file2\n[exit code 0, 0.1s]', tool_call_id: 'c' },
    { role: 'assistant', content: 'The **answer**.' },
  ];

  it('keeps the last exchanges, tool calls on one line each', () => {
    assert.deepEqual(
      lastExchanges(msgs, 1).map((m) => m.role),
      ['user', 'assistant', 'tool', 'assistant'],
    );
    const out = renderExchanges(msgs, { exchanges: 2, markdown: true }).map(plain);
    assert.deepEqual(out, [
      '› q1',
      'a1',
      '› q2',
      '⚙ terminal: ls -la',
      '  │ file1 file2 [exit code 0, 0.1s]',
      'The answer.',
    ]);
  });
});

describe('multi-line input', () => {
  it('joins lines ending in a backslash, and """ blocks', () => {
    const m = new MultilineInput();
    assert.deepEqual(m.feed('one \\'), { kind: 'more', block: false });
    assert.deepEqual(m.feed('two'), { kind: 'done', text: 'one \ntwo' });
    assert.deepEqual(m.feed('"""'), { kind: 'more', block: true });
    m.feed('/not a command \\');
    assert.deepEqual(m.feed('"""'), { kind: 'done', text: '/not a command \\' });
    m.feed('half \\');
    m.cancel();
    assert.deepEqual(m.feed('fresh'), { kind: 'done', text: 'fresh' });
  });
});

describe('input history', () => {
  const redactor = new Redactor([{ name: 'OPENAI_API_KEY', value: 'configured-secret-value' }]);

  it('persists lines across runs, never ones that look like a secret', () => {
    const home = mkdtempSync(join(tmpdir(), 'herald-hist-'));
    const h = new InputHistory(home, redactor);
    assert.equal(h.add('first line'), true);
    assert.equal(h.add('use sk-proj-abcdefghijklmnopqrstuvwxyz123456'), false);
    assert.equal(h.add('the key is configured-secret-value'), false);
    assert.equal(h.add('export API_KEY=abcdef123456'), false);
    assert.equal(h.add('   '), false);
    assert.deepEqual(new InputHistory(home, redactor).load(), ['first line']);
    assert.equal(statSync(join(home, HISTORY_FILE)).mode & 0o777, 0o600);
    assert.equal(unsafeForHistory('x'.repeat(5000), redactor), true);
  });

  it('stays bounded', () => {
    const home = mkdtempSync(join(tmpdir(), 'herald-hist-'));
    writeFileSync(
      join(home, HISTORY_FILE),
      Array.from({ length: 2 * MAX_HISTORY }, (_, i) => `l${i}`).join('\n') + '\n',
    );
    const h = new InputHistory(home, redactor);
    h.add('newest');
    const lines = readFileSync(join(home, HISTORY_FILE), 'utf8').trim().split('\n');
    assert.equal(lines.length, MAX_HISTORY);
    assert.equal(lines.at(-1), 'newest');
    assert.equal(h.load().length, MAX_HISTORY);
  });
});
