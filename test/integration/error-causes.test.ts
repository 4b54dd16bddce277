/**
 * Errors carry their cause to the user: a conversation that fails at its start — input
 * the schema refuses, or a workspace or endpoint only the worker can judge — is reported with
 * that cause by the real `herald` CLI (with and without `--wait`) and by the client library as the
 * README shows it, never as Temporal's "Workflow completed before the Update completed".
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { WorkflowNotFoundError } from '@temporalio/client';
import { ConversationFailedError, HeraldAgent } from '../../client/client.js';
import { runHerald } from '../support/processes.js';
import type { TestStack } from '../support/stack.js';
import { createTestStack } from '../support/stack.js';

const TEMPORAL_WORDS = /completed before the Update|No registered handler|Workflow Update failed/i;

describe('errors name their cause', () => {
  let stack: TestStack;
  before(async () => {
    stack = await createTestStack();
  });
  after(async () => {
    await stack.close();
  });

  const herald = (args: string[]) => runHerald(args, stack.workerEnv());

  /** The conversation was never started (the client refused the input first). */
  async function neverStarted(sessionId: string): Promise<void> {
    await assert.rejects(
      stack.temporal.workflow.getHandle(`session-${sessionId}`).describe(),
      (err: unknown) => err instanceof WorkflowNotFoundError,
    );
  }

  it('herald start --wait with a workspace that does not exist names the cwd', async () => {
    const r = await herald(['start', '--cwd', '/nonexistent', '--wait', 'hi']);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /InvalidInput/);
    assert.match(r.stderr, /cwd: no such directory \/nonexistent/);
    assert.doesNotMatch(r.stderr, TEMPORAL_WORDS);
  });

  it('herald start without --wait does not say "started" for a run that failed at its start', async () => {
    const r = await herald(['start', '--session', 'no-wait-bad-cwd', '--cwd', '/nonexistent', 'hi']);
    assert.equal(r.code, 1, r.stderr);
    assert.doesNotMatch(r.stdout, /started/);
    assert.match(r.stderr, /cwd: no such directory \/nonexistent/);
  });

  it('herald start refuses input the workflow would refuse, before starting anything', async () => {
    for (const wait of [['--wait'], []]) {
      const session = `bad-iterations${wait.length ? '-wait' : ''}`;
      const r = await herald(['start', '--session', session, '--max-iterations', '-3', ...wait, 'hi']);
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /maxIterations/);
      assert.doesNotMatch(r.stderr, TEMPORAL_WORDS);
      await neverStarted(session);
    }
  });

  it('herald start without --wait says "started" once the worker accepted the session', async () => {
    const r = await herald(['start', '--session', 'good-start', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), {
      sessionId: 'good-start',
      workflowId: 'session-good-start',
      started: 'ready',
    });
    const s = await stack.herald.conversation('good-start').state();
    assert.equal(s.status, 'idle');
  });

  it("the README's client snippet (cwd: '/src/project') fails with the cause", async () => {
    const agent = new HeraldAgent({ client: stack.herald, model: 'gpt-4.1', cwd: '/src/project' });
    await assert.rejects(agent.chat('Fix the bug in main.py'), (err: unknown) => {
      assert.ok(err instanceof ConversationFailedError, `got ${String(err)}`);
      assert.equal(err.failureType, 'InvalidInput');
      assert.match(err.message, /cwd: no such directory \/src\/project/);
      return true;
    });
  });

  it('runConversation names a cause only the worker knows (an endpoint it does not declare)', async () => {
    const agent = new HeraldAgent({ client: stack.herald, baseUrl: 'http://undeclared.invalid/v1' });
    await assert.rejects(agent.runConversation({ userMessage: 'hello' }), (err: unknown) => {
      assert.ok(err instanceof ConversationFailedError, `got ${String(err)}`);
      assert.match(err.message, /baseUrl: http:\/\/undeclared\.invalid\/v1 is not an endpoint this worker declares/);
      return true;
    });
  });

  it('a broken config file is a warning for client commands and an error, with its line, for a worker', async () => {
    const path = join(stack.home, 'broken.yaml');
    writeFileSync(path, 'agent:\n  maxIteratons: 5\n');
    const env = { ...stack.workerEnv(), HERALD_CONFIG: path };
    const caret = '  2 |   maxIteratons: 5\n    |   ^';
    const sessions = await runHerald(['sessions', '--json'], env);
    assert.equal(sessions.code, 0, sessions.stderr);
    assert.ok(Array.isArray(JSON.parse(sessions.stdout)));
    assert.match(sessions.stderr, /warning: .*agent: unknown key "maxIteratons" \(did you mean "maxIterations"\?\)/);
    assert.ok(sessions.stderr.includes(caret), sessions.stderr);
    const worker = await runHerald(['worker'], env);
    assert.equal(worker.code, 1, worker.stderr);
    assert.match(worker.stderr, /did you mean "maxIterations"/);
    assert.ok(worker.stderr.includes(caret), worker.stderr);
  });

  it('client.start checks the input first; whenStarted reports what the worker refused', async () => {
    await assert.rejects(stack.herald.start({ sessionId: 'lib-bad-iterations', maxIterations: 0 }), /maxIterations/);
    await neverStarted('lib-bad-iterations');
    const conv = await stack.herald.start({ sessionId: 'lib-bad-cwd', cwd: '/nonexistent' });
    await assert.rejects(conv.whenStarted(), (err: unknown) => {
      assert.ok(err instanceof ConversationFailedError, `got ${String(err)}`);
      assert.match(err.message, /cwd: no such directory \/nonexistent/);
      return true;
    });
    const good = await stack.herald.start({ sessionId: 'lib-good' });
    assert.deepEqual(await good.whenStarted(), { state: 'ready' });
  });
});
