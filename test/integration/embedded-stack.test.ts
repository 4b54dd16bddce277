/**
 * `herald dev` with nothing configured: it starts the Temporal dev server (Web UI on, history in a
 * file) and an embedded Postgres under the Herald home, plus a worker. Other `herald` commands find
 * it; Ctrl-C/SIGTERM stops everything; a second start keeps the data.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../../runtime/ports.js';
import { FakeProvider } from '../support/fake-provider.js';
import type { HeraldProcess } from '../support/processes.js';
import { runHerald, spawnHerald } from '../support/processes.js';

describe('herald dev (embedded stack)', () => {
  let fake: FakeProvider;
  let env: NodeJS.ProcessEnv;
  let home: string;
  const running: HeraldProcess[] = [];

  before(async () => {
    fake = await FakeProvider.start();
    home = mkdtempSync(join(tmpdir(), 'herald-dev-'));
    env = {
      ...process.env,
      HERALD_HOME: home,
      // The default workspace, outside the Herald home (never ~/workspaces of the machine running the tests).
      HERALD_WORKSPACE: mkdtempSync(join(tmpdir(), 'herald-dev-ws-')),
      HERALD_PROVIDER: 'custom',
      HERALD_MODEL: 'fake-model',
      OPENAI_BASE_URL: fake.url,
    };
    delete env.DATABASE_URL;
    delete env.TEMPORAL_ADDRESS;
    delete env.HERALD_TASK_QUEUE;
    env.HERALD_TEMPORAL_PORT = String(await freePort());
    env.HERALD_UI_PORT = String(await freePort());
    env.HERALD_PG_PORT = String(await freePort());
  });
  after(async () => {
    for (const p of running) p.kill('SIGKILL');
    await fake.stop();
  });

  async function dev(): Promise<HeraldProcess> {
    const p = spawnHerald(['dev'], env);
    running.push(p);
    await p.waitFor('Herald is running', 120_000);
    return p;
  }

  it('runs a conversation on embedded Temporal and Postgres, stops cleanly, and keeps data across restarts', async () => {
    const first = await dev();
    assert.match(first.output(), /Web UI:\s+http:\/\/127\.0\.0\.1:\d+/);
    assert.match(first.output(), /Database:\s+postgres:\/\/herald:\*\*\*@127\.0\.0\.1/);
    assert.ok(existsSync(join(home, 'runtime.json')));

    // A port already taken (here by a stack on another home) is a clear error, not a hang.
    const clash = await runHerald(['dev'], { ...env, HERALD_HOME: mkdtempSync(join(tmpdir(), 'herald-dev-other-')) });
    assert.equal(clash.code, 1);
    assert.match(clash.stderr, /port \d+ \(Temporal dev server\) is already in use/);

    fake.script([{ text: 'Hello from the embedded stack.' }]);
    const started = await runHerald(['start', 'hi there', '--session', 'embedded-1', '--wait', '--json'], env);
    assert.equal(started.code, 0, started.stderr);
    const out = JSON.parse(started.stdout) as { sessionId: string; result: { final_response: string } };
    assert.equal(out.result.final_response, 'Hello from the embedded stack.');

    first.kill('SIGTERM');
    assert.equal(await first.exited, 0);
    assert.equal(existsSync(join(home, 'runtime.json')), false);
    assert.ok(existsSync(join(home, 'temporal', 'temporal.db')));
    const dataDir = /data in (\S+)\)/.exec(first.output())?.[1];
    assert.ok(dataDir && existsSync(join(dataDir, 'PG_VERSION')), `no Postgres data in ${dataDir}`);

    // Second start: the conversation (Temporal history file) and its transcript (Postgres data) are still there.
    const second = await dev();
    fake.script([{ text: 'Still here.' }]);
    const sent = await runHerald(['send', 'embedded-1', 'are you still there?', '--json'], env);
    assert.equal(sent.code, 0, sent.stderr);
    const r = JSON.parse(sent.stdout) as { final_response: string; turn: number; messages_count: number };
    assert.equal(r.final_response, 'Still here.');
    assert.equal(r.turn, 2);
    assert.equal(r.messages_count, 4);

    const state = await runHerald(['state', 'embedded-1'], env);
    assert.match(state.stdout, /session embedded-1 · idle · turn 2/);
    const sessions = await runHerald(['sessions'], env);
    assert.match(sessions.stdout, /^embedded-1 +\S+ +\S+ \S+ +4 +fake-model +hi there$/m);

    second.kill('SIGINT');
    assert.equal(await second.exited, 0);
    fake.assertDone();
  });
});
