/**
 * Many people talking to one conversation at once: every message a client sent runs exactly once
 * and its sender gets its turn's result, whatever the server did with the updates in between
 * (updates a workflow task dropped, a run moving to the next for continue-as-new).
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { HeraldClient } from '../../client/client.js';
import type { TestStack } from '../support/stack.js';
import { createTestStack } from '../support/stack.js';

const CLIENTS = 3;
const SENDS_PER_CLIENT = 20;

describe('concurrent sends', () => {
  let stack: TestStack;
  const clients: HeraldClient[] = [];

  before(async () => {
    stack = await createTestStack();
    for (let i = 0; i < CLIENTS; i++) {
      clients.push(
        await HeraldClient.connect({
          address: stack.temporalAddress,
          namespace: 'default',
          taskQueue: stack.taskQueue,
          databaseUrl: stack.databaseUrl,
          uiUrl: undefined,
          codec: stack.config.codec,
        }),
      );
    }
  });
  after(async () => {
    for (const c of clients) await c.close();
    await stack.close();
  });

  it('60 messages sent at once by three clients each run once, and each sender gets its own reply', async () => {
    const ws = join(stack.workspaces, 'ws');
    mkdirSync(ws, { recursive: true });
    stack.fake.respond((req) => {
      const messages = (req.body.messages ?? []) as Array<{ role: string; content?: unknown }>;
      const last = [...messages].reverse().find((m) => m.role === 'user');
      return { text: `echo: ${typeof last?.content === 'string' ? last.content.split('\n').at(-1) : ''}` };
    });
    await stack.herald.conversation('crowd').send('hello', { start: { cwd: ws, busyPolicy: 'queue' } });
    const sends = clients.flatMap((c, ci) =>
      Array.from({ length: SENDS_PER_CLIENT }, (_, i) => {
        const text = `message ${ci}-${i}`;
        return c
          .conversation('crowd')
          .send(text, { id: `m-${ci}-${i}` })
          .then((r) => ({ text, r }));
      }),
    );
    const results = await Promise.all(sends);
    for (const { text, r } of results) assert.equal(r.final_response, `echo: ${text}`, JSON.stringify(r));
    const users = (await stack.transcript('crowd')).filter((m) => m.role === 'user').map((m) => m.content);
    for (const { text } of results)
      assert.equal(users.filter((u) => String(u).endsWith(text)).length, 1, `${text} ran once`);
    assert.equal(users.length, CLIENTS * SENDS_PER_CLIENT + 1);
  });
});
