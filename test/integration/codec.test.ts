/**
 * Encrypted payloads (docs/encryption.md), on a real dev server, Postgres and the fake provider:
 * with HERALD_CODEC_KEY set, `temporal workflow show -o json` of a conversation holds none of the
 * user's words, the tool's output or the model's reply, not even base64-encoded; `herald
 * codec-server` decodes them for the CLI and for the Web UI (headless Chromium on the dev server's
 * UI started with `--ui-codec-endpoint`); a rotation (new key first, old key second) keeps the
 * history written under the old key readable, by a worker that replays it and by a client; a
 * wrong key is a clear error and never a workflow task failing in a loop.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import puppeteer from 'puppeteer-core';
import { HeraldClient } from '../../client/client.js';
import type { CodecKeyring } from '../../runtime/codec-keys.js';
import { parseCodecKeys } from '../../runtime/codec-keys.js';
import type { RunningCodecServer } from '../../runtime/codec-server.js';
import { startCodecServer } from '../../runtime/codec-server.js';
import { clientCodec, workerCodec, workerDataConverter } from '../../runtime/data-converter.js';
import { Worker } from '@temporalio/worker';
import { WORKFLOWS_PATH } from '../../workers/worker.js';
import { freePort } from '../../runtime/ports.js';
import { ensureTemporalCli } from '../../runtime/temporal-cli.js';
import type { DevServer } from '../../workers/temporal-dev-server.js';
import { startTemporalDevServer } from '../../workers/temporal-dev-server.js';
import type { TestStack } from '../support/stack.js';
import { createTestStack } from '../support/stack.js';
import { temporal } from '../support/temporal-cli.js';

const entry = (id: string) => `${id}:${randomBytes(32).toString('base64')}`;
const OLD = entry('old');
const NEW = entry('new');
const ring = (spec: string): CodecKeyring => ({
  keys: parseCodecKeys(spec, 'test', 'test'),
  source: 'HERALD_CODEC_KEY',
});
const tag = () => randomBytes(4).toString('hex');

/** A replayer with these keys, on the run's workflow bundle when there is one. */
function replayOptions(keys: CodecKeyring) {
  const bundle = process.env.HERALD_WORKFLOW_BUNDLE;
  return bundle
    ? { workflowBundle: { codePath: bundle }, dataConverter: { payloadCodecs: [workerCodec(keys)] } }
    : { workflowsPath: WORKFLOWS_PATH, dataConverter: workerDataConverter(keys) };
}

/** Everything `show -o json` printed, plus every base64 string in it decoded: plaintext cannot hide. */
function haystack(json: string): string {
  const parts = [json];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') {
      if (v.length >= 8 && /^[A-Za-z0-9+/]+={0,2}$/.test(v)) parts.push(Buffer.from(v, 'base64').toString('latin1'));
    } else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(JSON.parse(json));
  return parts.join('\n');
}

describe('encrypted payloads', () => {
  let server: DevServer;
  let codecServer: RunningCodecServer;
  let stack: TestStack;
  let ws: string;
  let uiUrl: string;

  before(async () => {
    // The Web UI reads payloads through the codec server: its own dev server, started pointing at it.
    const codecPort = await freePort();
    const uiPort = await freePort();
    uiUrl = `http://127.0.0.1:${uiPort}`;
    codecServer = await startCodecServer({
      codec: clientCodec(ring(`${NEW},${OLD}`)),
      port: codecPort,
      origins: [uiUrl],
    });
    server = await startTemporalDevServer({
      cliPath: ensureTemporalCli(),
      port: await freePort(),
      uiPort,
      namespace: 'default',
      extraArgs: ['--ui-codec-endpoint', codecServer.url],
    });
    stack = await createTestStack({ temporalAddress: server.address, env: { HERALD_CODEC_KEY: OLD } });
    ws = join(stack.workspaces, 'ws');
    mkdirSync(ws, { recursive: true });
  });
  after(async () => {
    await stack?.close();
    await codecServer?.close();
    await server?.stop();
  });

  beforeEach(() => {
    stack.fake.reset();
  });

  /** Once: the worker holding only the old key stops, one holding both (new first) takes over. */
  let rotation: Promise<unknown> | undefined;
  const rotateWorkers = () =>
    (rotation ??= (async () => {
      await stack.worker!.shutdown();
      await stack.startWorker({ HERALD_CODEC_KEY: `${NEW},${OLD}` });
    })());

  const show = async (workflowId: string, extra: string[] = []) => {
    const r = await temporal(server.address, ['workflow', 'show', '-w', workflowId, '-o', 'json', ...extra]);
    assert.equal(r.code, 0, r.stderr);
    return r.stdout;
  };

  /** A conversation with a user message, a tool result and a model reply, each carrying a marker. */
  async function converse(client: HeraldClient, id: string, t: string) {
    writeFileSync(join(ws, `notes-${t}.txt`), `TOOL-OUTPUT-${t} lives in this file\n`);
    stack.fake.script([
      { toolCalls: [{ name: 'read_file', arguments: { path: `notes-${t}.txt` } }] },
      { text: `MODEL-REPLY-${t}: the notes say hello` },
    ]);
    const r = await client.conversation(id).send(`USER-TEXT-${t} please read my notes`, { start: { cwd: ws } });
    assert.equal(r.failed, false, r.error);
    assert.match(r.final_response ?? '', new RegExp(`MODEL-REPLY-${t}`));
    return r;
  }

  it('history holds no user text, tool output or model reply; the codec server decodes them for the CLI', async () => {
    const t = tag();
    await converse(stack.herald, `enc-${t}`, t);
    const wf = stack.herald.conversation(`enc-${t}`).workflowId;
    const raw = haystack(await show(wf));
    assert.ok(raw.includes('binary/encrypted'), 'payloads are encrypted');
    for (const secret of [`USER-TEXT-${t}`, `TOOL-OUTPUT-${t}`, `MODEL-REPLY-${t}`, `notes-${t}`])
      assert.ok(!raw.includes(secret), `${secret} is not in the history`);
    // The same history through the codec server: readable.
    const decoded = haystack(await show(wf, ['--codec-endpoint', codecServer.url]));
    assert.ok(decoded.includes(`USER-TEXT-${t}`), 'the codec server decodes the user text');
    assert.ok(decoded.includes(`MODEL-REPLY-${t}`), 'the codec server decodes the reply');
    // The title search attribute (never encrypted) is withheld; the client reads state as usual.
    const described = await stack.temporal.workflow.getHandle(wf).describe();
    assert.equal(described.searchAttributes.HeraldTitle, undefined);
    assert.equal((await stack.herald.conversation(`enc-${t}`).state()).turn, 1);
  });

  it("a failed model call's message (the provider's error text) is encrypted too", async () => {
    const t = tag();
    stack.fake.script(
      Array.from({ length: 3 }, () => ({ status: 400, error: { message: `PROVIDER-ERROR-${t} about your request` } })),
    );
    const r = await stack.herald.conversation(`fail-${t}`).send(`USER-TEXT-${t}`, { start: { cwd: ws } });
    assert.equal(r.failed, true);
    assert.match(r.error ?? '', new RegExp(`PROVIDER-ERROR-${t}`), 'the client reads the error');
    const wf = stack.herald.conversation(`fail-${t}`).workflowId;
    const shown = await show(wf);
    assert.ok(shown.includes('ActivityTaskFailed') || shown.includes('ACTIVITY_TASK_FAILED'), 'an activity failed');
    assert.ok(!haystack(shown).includes(`PROVIDER-ERROR-${t}`), 'the failure message is not in plaintext');
    assert.ok(haystack(await show(wf, ['--codec-endpoint', codecServer.url])).includes(`PROVIDER-ERROR-${t}`));
  });

  it('the Temporal Web UI decodes the conversation through the codec server (headless Chromium)', async (t) => {
    const chromium = process.env.HERALD_CHROMIUM ?? '/usr/bin/chromium';
    if (!existsSync(chromium)) {
      t.skip(`no Chromium at ${chromium}`);
      return;
    }
    const id = tag();
    await converse(stack.herald, `ui-${id}`, id);
    const wf = stack.herald.conversation(`ui-${id}`).workflowId;
    const { runId } = await stack.temporal.workflow.getHandle(wf).describe();
    const browser = await puppeteer.launch({
      executablePath: chromium,
      headless: true,
      args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), '--disable-gpu'],
    });
    try {
      const page = await browser.newPage();
      const codecCalls: string[] = [];
      page.on('request', (req) => {
        if (req.url().startsWith(codecServer.url)) codecCalls.push(`${req.method()} ${new URL(req.url()).pathname}`);
      });
      await page.goto(`${uiUrl}/namespaces/default/workflows/${wf}/${runId}/history`, {
        waitUntil: 'domcontentloaded',
      });
      const text = JSON.stringify(`USER-TEXT-${id}`);
      await page.waitForFunction(
        `document.body.innerText.includes(${text}) || [...document.querySelectorAll('iframe')].some((f) => f.contentDocument?.body?.innerText.includes(${text}))`,
        { timeout: 60_000 },
      );
      assert.ok(
        codecCalls.some((c) => c === 'POST /decode'),
        `the UI called the codec server: ${codecCalls.join(', ')}`,
      );
    } finally {
      await browser.close();
    }
  });

  it('after a rotation (new key first, old second) a history written under the old key replays and reads', async () => {
    const t = tag();
    await converse(stack.herald, `rot-${t}`, t);
    await rotateWorkers();
    const rotated = await HeraldClient.connect({ ...stack.herald.settings, codec: ring(`${NEW},${OLD}`) });
    try {
      const t2 = tag();
      writeFileSync(join(ws, `notes-${t2}.txt`), `TOOL-OUTPUT-${t2}\n`);
      stack.fake.script([{ text: `MODEL-REPLY-${t2}` }]);
      const r = await rotated.conversation(`rot-${t}`).send(`USER-TEXT-${t2}`);
      assert.equal(r.failed, false, r.error);
      assert.equal(r.final_response, `MODEL-REPLY-${t2}`);
      const wf = rotated.conversation(`rot-${t}`).workflowId;
      // Both keys are in the history, and the rotated client reads the whole of it.
      const raw = await show(wf);
      assert.ok(
        raw.includes(Buffer.from('old').toString('base64')) && raw.includes(Buffer.from('new').toString('base64')),
      );
      const history = await rotated.temporal.workflow.getHandle(wf).fetchHistory();
      assert.ok(history.events!.length > 10);
      // The replayer, explicitly: the history (turn 1 under the old key, turn 2 under the new)
      // replays with the rotated keys, and not without the old one.
      await Worker.runReplayHistory(replayOptions(ring(`${NEW},${OLD}`)), history, wf);
      // Without it the start input is undecodable, so the replay diverges: a nondeterminism
      // failure (retried), with the key named in the worker's log — not a conversation decided on garbage.
      await assert.rejects(Worker.runReplayHistory(replayOptions(ring(NEW)), history, wf), {
        name: 'DeterminismViolationError',
      });
      assert.equal((await rotated.conversation(`rot-${t}`).state()).turn, 2);
      const decoded = haystack(await show(wf, ['--codec-endpoint', codecServer.url]));
      assert.ok(decoded.includes(`USER-TEXT-${t}`) && decoded.includes(`USER-TEXT-${t2}`));
      // A client holding only the old key can no longer read what the new key wrote: a clear error.
      await assert.rejects(stack.herald.conversation(`rot-${t}`).state(), /key "new": HERALD_CODEC_KEY holds old/);
    } finally {
      await rotated.close();
    }
  });

  it('a client with a wrong key gets a clear rejection, and the conversation goes on without a failing task', async () => {
    const t = tag();
    await rotateWorkers();
    const good = await HeraldClient.connect({ ...stack.herald.settings, codec: ring(`${NEW},${OLD}`) });
    const wrong = await HeraldClient.connect({ ...stack.herald.settings, codec: ring(entry('stranger')) });
    try {
      await converse(good, `wrong-${t}`, t);
      // The worker rejects the update with the reason; where the workflow's own failures are
      // encrypted too (a worker bundling at start), this client cannot read that rejection either
      // and says which key it would need. Either way the message names the keys.
      const wrongKey =
        /could not be decoded.*key "stranger".*holds new, old|key "new": HERALD_CODEC_KEY holds stranger/s;
      await assert.rejects(wrong.conversation(`wrong-${t}`).send('sent with the wrong key'), (err: Error) => {
        assert.match(String((err.cause as Error | undefined)?.message ?? err.message), wrongKey);
        return true;
      });
      // Reading with the wrong key: the error names the key it would need.
      await assert.rejects(wrong.conversation(`wrong-${t}`).state(), /key "new": HERALD_CODEC_KEY holds stranger/);
      // No workflow task failed (no loop), and the right key still talks to it.
      stack.fake.script([{ text: 'still here' }]);
      const r = await good.conversation(`wrong-${t}`).send('and now with the right key');
      assert.equal(r.final_response, 'still here');
      const history = await good.temporal.workflow.getHandle(good.conversation(`wrong-${t}`).workflowId).fetchHistory();
      const failedTasks = history.events!.filter((e) => e.workflowTaskFailedEventAttributes);
      assert.equal(failedTasks.length, 0);
      // A conversation started with the wrong key fails at once as invalid input, saying why.
      await assert.rejects(
        wrong.conversation(`wrong-start-${t}`).send('hello', { start: { cwd: ws } }),
        /failed \(InvalidInput\): invalid conversation input: it could not be decoded.*key "stranger"|key "new": HERALD_CODEC_KEY holds stranger/s,
      );
    } finally {
      await good.close();
      await wrong.close();
    }
  });

  it('a `temporal` CLI user with --codec-endpoint sends encrypted messages and reads the results', async () => {
    const t = tag();
    // The codec server encrypts with the new key: the workers must hold it.
    await rotateWorkers();
    const client = await HeraldClient.connect({ ...stack.herald.settings, codec: ring(`${NEW},${OLD}`) });
    try {
      await converse(client, `cli-${t}`, t);
    } finally {
      await client.close();
    }
    const wf = stack.herald.conversation(`cli-${t}`).workflowId;
    stack.fake.script([{ text: `MODEL-REPLY-CLI-${t}` }]);
    const r = await temporal(server.address, [
      'workflow',
      'update',
      'execute',
      '-w',
      wf,
      '--name',
      'sendMessage',
      '--input',
      JSON.stringify({ text: `CLI-TEXT-${t}`, id: `m-${t}` }),
      '--codec-endpoint',
      codecServer.url,
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`MODEL-REPLY-CLI-${t}`), 'the result comes back decoded');
    const q = await temporal(server.address, [
      ...['workflow', 'query', '-w', wf, '--name', 'state', '-o', 'json'],
      ...['--codec-endpoint', codecServer.url],
    ]);
    assert.equal(q.code, 0, q.stderr);
    assert.equal((JSON.parse(q.stdout) as { queryResult: Array<{ turn: number }> }).queryResult[0]!.turn, 2);
    const raw = haystack(await show(wf));
    assert.ok(
      !raw.includes(`CLI-TEXT-${t}`) && !raw.includes(`MODEL-REPLY-CLI-${t}`),
      'what the CLI sent is encrypted',
    );
  });
});
