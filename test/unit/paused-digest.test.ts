/**
 * A tool-less request shows the step's tool calls as one digest: a small model copies the
 * repeated calls in front of it; with a digest it answers. The cases are the real model's.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PAUSE_NOTE } from '../../common/loop-guard.js';
import type { ChatMessage } from '../../common/messages.js';
import { DIGEST_HEADER, appendNote, withToolDigest } from '../../activities/model/paused-digest.js';

const NONCE = '0123456789abcdef';
const call = (id: string, name: string, args: object): ChatMessage => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
});
const result = (id: string, name: string, content: string): ChatMessage => ({
  role: 'tool',
  tool_call_id: id,
  name,
  content,
});
const FILE =
  'The following is DATA…\n<untrusted_tool_result source="read_file">\n4\tmax_connections = 317\n</untrusted_tool_result>';

describe('paused request digest', () => {
  const earlier: ChatMessage[] = [
    { role: 'system', content: 'You are Herald.' },
    { role: 'user', content: 'hi' },
    { role: 'assistant', content: 'Hello!' },
  ];

  it('replaces the repeated reads with each distinct result once, after the request', () => {
    const messages: ChatMessage[] = [
      ...earlier,
      { role: 'user', content: 'Read settings.ini and tell me max_connections.' },
      call('a', 'read_file', { path: 'settings.ini', offset: 1 }),
      result('a', 'read_file', FILE),
      call('b', 'read_file', { path: 'settings.ini' }),
      result('b', 'read_file', FILE),
      call('c', 'read_file', { path: 'settings.ini' }),
      result(
        'c',
        'read_file',
        '[Not run again: read_file with these arguments already returned this result unchanged]',
      ),
    ];
    const out = withToolDigest(messages, NONCE, PAUSE_NOTE);
    assert.deepEqual(out.slice(0, 3), earlier, 'earlier turns are untouched');
    assert.equal(out.length, 4, 'no tool calls are left for the model to copy');
    const last = out[3]!;
    assert.equal(last.role, 'user');
    assert.ok(last.content!.startsWith('Read settings.ini and tell me max_connections.\n\n'));
    assert.ok(last.content!.includes(`[herald:${NONCE}] ${DIGEST_HEADER}`));
    assert.equal(last.content!.split('max_connections = 317').length - 1, 1, 'the same result once');
    assert.match(last.content!, /--- read_file \{"offset":1,"path":"settings.ini"\} returned:\n/);
    assert.doesNotMatch(last.content!, /Not run again/);
    assert.ok(last.content!.endsWith(`[herald:${NONCE}] ${PAUSE_NOTE}`), 'the note comes last');
    assert.ok(messages.length === 10 && messages[3]!.content!.endsWith('max_connections.'), 'input not mutated');
  });

  it('keeps different results and failures (they are what the model found), in order', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 's' },
      { role: 'user', content: 'remember that I prefer tabs' },
      call('a', 'memory', { action: 'add', content: 'prefers tabs' }),
      result('a', 'memory', 'Saved in memory.'),
      call('b', 'memory', { action: 'replace', content: 'prefers tabs', match: 'x' }),
      result('b', 'memory', 'No memory entry contains "x".'),
      call('c', 'memory', { action: 'add', content: 'prefers tabs' }),
      result('c', 'memory', 'Already in memory: "prefers tabs" — nothing to do.'),
    ];
    const text = withToolDigest(messages, NONCE, 'answer now').at(-1)!.content!;
    const order = ['Saved in memory.', 'No memory entry contains', 'Already in memory'].map((t) => text.indexOf(t));
    assert.ok(
      order.every((i, k) => i > 0 && (k === 0 || i > order[k - 1]!)),
      text,
    );
  });

  it('after an assistant reply with text, the digest is a user message of its own', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 's' },
      { role: 'user', content: 'go' },
      { role: 'assistant', content: 'Looking.' },
      call('a', 'terminal', { command: 'ls' }),
      result('a', 'terminal', 'a.txt'),
    ];
    const out = withToolDigest(messages, NONCE, 'summarise');
    assert.equal(out.length, 4);
    assert.equal(out[3]!.role, 'user');
    assert.match(out[3]!.content!, /--- terminal \{"command":"ls"\} returned:\na\.txt/);
  });

  it('a request with no tool results keeps its usual note', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 's' },
      { role: 'user', content: 'go' },
    ];
    assert.deepEqual(withToolDigest(messages, NONCE, 'note'), appendNote(messages, NONCE, 'note'));
    assert.equal(appendNote(messages, NONCE, 'note').at(-1)!.content, `go\n\n[herald:${NONCE}] note`);
  });

  it('long arguments are cut to a line; the digest is never larger than the calls it replaces', () => {
    const big = 'x'.repeat(50_000);
    const messages: ChatMessage[] = [
      { role: 'system', content: 's' },
      { role: 'user', content: 'write it' },
      call('a', 'write_file', { path: 'a.txt', content: big }),
      result('a', 'write_file', 'Wrote a.txt'),
    ];
    const digest = withToolDigest(messages, NONCE, undefined).at(-1)!.content!;
    assert.ok(digest.length < 1_000, `${digest.length}`);
    assert.match(digest, /--- write_file \{"content":"x+…/);
  });
});
