/**
 * No reply or tool call can wedge a worker: a catastrophic search pattern returns while
 * another conversation on the same worker keeps streaming; a NUL in the model's reasoning, a 3 MB
 * reply and 3,000 tool calls in one reply each end with a clear, bounded outcome — and each paid
 * model call is made once, not repeated by a failing save.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { RecordedRequest } from '../support/fake-provider.js';
import type { TestStack } from '../support/stack.js';
import { createTestStack } from '../support/stack.js';
import { variedText } from '../support/varied-text.js';

type WireMessage = { role: string; content: string | null };
const messagesOf = (r: RecordedRequest) => r.body.messages as WireMessage[];

describe('hostile replies', () => {
  let stack: TestStack;
  let ws: string;

  before(async () => {
    stack = await createTestStack();
    ws = join(stack.workspaces, 'ws');
    mkdirSync(join(ws, 'big'), { recursive: true });
    // 2 MB of near-matches for (a+)+$: a backtracking engine never finishes a line of these.
    for (let i = 0; i < 4; i++) writeFileSync(join(ws, 'big', `f${i}.txt`), `${'a'.repeat(60_000)}!\n`.repeat(8));
  });
  after(async () => {
    await stack.close();
  });
  beforeEach(() => {
    stack.fake.reset();
  });

  it('a catastrophic search pattern returns while another conversation keeps streaming', async () => {
    const streamed = variedText(2000);
    stack.fake.respond((req) => {
      const last = messagesOf(req).at(-1)!;
      if (last.role === 'user' && last.content === 'search') {
        return { toolCalls: [{ name: 'search_files', arguments: { pattern: '(a+)+$', path: 'big' } }] };
      }
      if (last.role === 'user' && last.content === 'talk') return { text: streamed, chunkDelayMs: 2 };
      return { text: 'searched' };
    });
    // The event loop this worker runs on (the test's own): the longest it was held at once.
    let longest = 0;
    let lastTick = Date.now();
    const timer = setInterval(() => {
      const now = Date.now();
      longest = Math.max(longest, now - lastTick);
      lastTick = now;
    }, 10);
    try {
      const [searched, talked] = await Promise.all([
        stack.herald.conversation('x-search').send('search', { start: { cwd: ws } }),
        stack.herald.conversation('x-talk').send('talk', { start: { cwd: ws } }),
      ]);
      assert.equal(searched.final_response, 'searched', searched.error);
      assert.equal(talked.final_response, streamed);
    } finally {
      clearInterval(timer);
    }
    const result = (await stack.transcript('x-search')).find((m) => m.role === 'tool')!.content!;
    assert.match(result, /No matches for/);
    assert.ok(longest < 1000, `the event loop was held for ${longest} ms at once`);
  });

  it('a NUL in reasoning, text and tool arguments is stored without it and each call is made once', async () => {
    stack.fake.script([
      {
        reasoning: 'thinking\u0000 hard \uD800',
        text: 'let me look\u0000',
        toolCalls: [{ name: 'read_file', arguments: { path: 'missing\u0000.txt' } }],
      },
      { text: 'done\u0000' },
    ]);
    const r = await stack.herald.conversation('x-nul').send('go', { start: { cwd: ws } });
    assert.equal(r.failed, false, r.error ?? undefined);
    assert.equal(stack.fake.requests.length, 2, 'each model call made once');
    const transcript = await stack.transcript('x-nul');
    const assistant = transcript.find((m) => m.role === 'assistant')!;
    // eslint-disable-next-line no-control-regex -- NUL is what must not be stored
    const unstorable = /\u0000|[\uD800-\uDFFF]/;
    assert.match(assistant.content ?? '', /^let me look/);
    assert.match(assistant.reasoning ?? '', /^thinking/);
    for (const m of transcript) {
      assert.doesNotMatch(m.content ?? '', unstorable);
      assert.doesNotMatch(m.reasoning ?? '', unstorable);
    }
    assert.match(assistant.reasoning ?? '', /thinking\uFFFD hard \uFFFD/);
  });

  it('a 3 MB reply is stored whole and the turn ends normally, its result bounded', async () => {
    const huge = `${variedText(3_000_000)} THE END`;
    stack.fake.script([{ text: huge, chunkChars: 64 * 1024 }]);
    const r = await stack.herald.conversation('x-huge').send('write a lot', { start: { cwd: ws } });
    assert.equal(r.failed, false, r.error ?? undefined);
    assert.equal(stack.fake.requests.length, 1);
    assert.ok(r.final_response!.length <= 200_000, `the turn result carries ${r.final_response!.length} characters`);
    const stored = (await stack.transcript('x-huge')).at(-1)!.content!;
    assert.equal(stored.length, huge.length);
    assert.ok(stored.endsWith('THE END'));
  });

  it('3,000 tool calls in one reply: none runs, the model is told why, and the conversation goes on', async () => {
    const calls = Array.from({ length: 3000 }, (_, i) => ({
      name: 'terminal',
      arguments: { command: `touch made-${i}.txt` },
    }));
    stack.fake.script([{ toolCalls: calls }, { text: 'I will make fewer calls.' }]);
    const r = await stack.herald.conversation('x-many').send('make files', { start: { cwd: ws } });
    assert.equal(r.final_response, 'I will make fewer calls.', r.error ?? undefined);
    assert.equal(stack.fake.requests.length, 2);
    const told = messagesOf(stack.fake.requests[1]!).at(-1)!.content!;
    assert.match(told, /3000 tool calls; at most 128 are allowed in one reply, so none of them ran/);
    assert.ok(!existsSync(join(ws, 'made-0.txt')), 'no call ran');
  });
});
