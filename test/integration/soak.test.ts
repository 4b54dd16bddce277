/**
 * Soak: 20 conversations run concurrently while the provider fails at random on 30% of calls
 * (HTTP 500, 503, 429, a stream cut mid-response; never more than two in a row for one
 * conversation). Every conversation ends with the same final
 * transcript as a fault-free run, modulo retry bookkeeping; none is left stuck.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { StoredMessage } from '../../common/messages.js';
import { isValidOrder } from '../../shared/role-order.js';
import type { RecordedRequest, ScriptedReply } from '../support/fake-provider.js';
import type { TestStack } from '../support/stack.js';
import { createTestStack } from '../support/stack.js';
import { prng } from '../support/prng.js';

const CONVERSATIONS = 20;
const FAULT_RATE = 0.3;
const MAX_FAULTS_IN_A_ROW = 2;

/** Which conversation a request belongs to: the file number its user asked about. */
function conversationOf(req: RecordedRequest): string {
  const messages = req.body.messages as Array<{ role: string; content: string | null }>;
  const user = messages.find((m) => m.role === 'user')?.content ?? '';
  return /#(\d+)/.exec(user)?.[1] ?? '?';
}

/** A deterministic model: its answer depends only on what it is asked. */
function answer(req: RecordedRequest): ScriptedReply {
  const messages = req.body.messages as Array<{ role: string; content: string | null }>;
  const last = messages.at(-1)!;
  const n = conversationOf(req);
  if (last.role === 'user')
    return { text: `Reading file ${n}.`, toolCalls: [{ name: 'read_file', arguments: { path: `f${n}.txt` } }] };
  return { text: `File ${n} says: ${(last.content ?? '').split('\n')[0]!.replace(/^\s*\d+\t/, '')}` };
}

function normalise(messages: StoredMessage[]) {
  return messages.map((m) => ({
    role: m.role,
    content: m.content,
    calls: m.tool_calls?.map((c) => [c.function.name, c.function.arguments]),
  }));
}

describe('soak: random provider faults', () => {
  let stack: TestStack;
  let ws: string;
  before(async () => {
    stack = await createTestStack({ configYaml: 'retry: { baseDelaySeconds: 0.1, maxDelaySeconds: 0.5 }\n' });
    ws = join(stack.workspaces, 'soak');
    mkdirSync(ws, { recursive: true });
    for (let i = 0; i < CONVERSATIONS; i++) writeFileSync(join(ws, `f${i}.txt`), `content of file ${i}\n`);
  });
  after(async () => {
    await stack.close();
  });

  async function run(prefix: string): Promise<Map<number, StoredMessage[]>> {
    const results = await Promise.all(
      Array.from({ length: CONVERSATIONS }, async (_, i) => {
        const conv = stack.herald.conversation(`${prefix}-${i}`);
        const r = await conv.send(`Please read file #${i}`, {
          start: {
            cwd: ws,
            fallbackProviders: [{ provider: 'custom', model: 'soak-backup', baseUrl: stack.fake.url }],
          },
        });
        return [i, r] as const;
      }),
    );
    const out = new Map<number, StoredMessage[]>();
    for (const [i, r] of results) {
      assert.equal(r.completed, true, `${prefix}-${i}: ${r.error ?? r.turn_exit_reason}`);
      assert.equal(r.final_response, `File ${i} says: content of file ${i}`);
      const transcript = await stack.transcript(`${prefix}-${i}`);
      assert.ok(isValidOrder(transcript));
      out.set(i, transcript);
    }
    return out;
  }

  it('ends every conversation with the transcript of a fault-free run', async () => {
    stack.fake.respond(answer);
    const clean = await run('clean');

    const random = prng(20261130);
    let faults = 0;
    // At most MAX_FAULTS_IN_A_ROW faults in a row for any one conversation: within that, Herald
    // must always recover (3 attempts per call slot, then the fallback provider). A longer streak
    // legitimately exhausts both providers and fails the turn — that path has its own tests in
    // failures.test.ts; here it would only make the soak flaky, since which conversation draws
    // which fault depends on the order concurrent requests arrive in.
    const streak = new Map<string, number>();
    stack.fake.reset().respond((req) => {
      const conversation = conversationOf(req);
      const inARow = streak.get(conversation) ?? 0;
      if (inARow < MAX_FAULTS_IN_A_ROW && random() < FAULT_RATE) {
        streak.set(conversation, inARow + 1);
        faults += 1;
        const kind = Math.floor(random() * 4);
        if (kind === 0) return { status: 500 };
        if (kind === 1) return { status: 503, error: { message: 'The server is overloaded' } };
        if (kind === 2) return { status: 429, headers: { 'retry-after': '0' } };
        return { ...answer(req), cutAfterChunks: 2, chunkDelayMs: 5 };
      }
      streak.set(conversation, 0);
      return answer(req);
    });
    const started = Date.now();
    const faulty = await run('faulty');
    console.log(
      `soak: ${CONVERSATIONS} conversations, ${stack.fake.requests.length} provider calls, ${faults} injected faults, ${Date.now() - started} ms`,
    );
    assert.ok(faults >= 5, `only ${faults} faults were injected`);
    for (let i = 0; i < CONVERSATIONS; i++)
      assert.deepEqual(normalise(faulty.get(i)!), normalise(clean.get(i)!), `conversation ${i}`);
  });
});
