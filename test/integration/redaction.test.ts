/**
 * Redaction end to end (docs/redaction.md): a worker holds a secret in a variable whose name says
 * nothing (MY_SERVICE_CREDS); a user on the same machine pastes it into `herald start`, plain and
 * disguised; the model repeats it encoded and a tool prints it. Afterwards no form of it is in the
 * search attributes, the memo, the workflow history, any column of any Postgres table, or the
 * worker's log — and the title still says what the conversation is about.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { HeraldProcess } from '../support/processes.js';
import { spawnHerald } from '../support/processes.js';
import type { TestStack } from '../support/stack.js';
import { createTestStack, eventually } from '../support/stack.js';
import { allText } from '../support/all-text.js';

const SECRET = 'Vx3-qL9w_Rt7Kp2mZs8Nc4Bd';
const MARK = '[REDACTED:MY_SERVICE_CREDS]';

/** The forms to look for, computed here independently of the redactor. */
function leakForms(secret: string): string[] {
  const forms = new Set<string>();
  const s = secret.toLowerCase();
  for (let i = 0; i + 12 <= s.length; i++) forms.add(s.slice(i, i + 12));
  forms.add(Buffer.from(secret).toString('hex'));
  for (const pad of ['', 'x', 'xy']) {
    const b = Buffer.from(pad + secret).toString('base64');
    // Only the characters that depend on the secret alone.
    const from = pad.length === 0 ? 0 : pad.length + 1;
    forms.add(b.slice(from, from + 24).toLowerCase());
  }
  return [...forms];
}

/** Which forms a text holds (case, whitespace and zero-width characters aside). */
function leaks(where: string, text: string): string[] {
  const flat = text.replace(/[\s\u200b]/g, '').toLowerCase();
  return leakForms(SECRET)
    .filter((f) => flat.includes(f))
    .map((f) => `${f} in ${where}`);
}

describe('redaction of everything that leaves the worker', () => {
  let stack: TestStack;
  let worker: HeraldProcess;
  let env: NodeJS.ProcessEnv;
  let workspace: string;
  const outputs: string[] = [];

  before(async () => {
    workspace = mkdtempSync(join(tmpdir(), 'herald-redaction-ws-'));
    stack = await createTestStack({ worker: false, env: { HERALD_WORKSPACE: workspace } });
    env = { ...stack.workerEnv(), MY_SERVICE_CREDS: SECRET, HERALD_LOG_LEVEL: 'debug' };
    worker = spawnHerald(['worker'], env);
    await worker.waitFor('worker polling');
  });

  after(async () => {
    worker?.kill();
    await stack?.close();
    rmSync(workspace, { recursive: true, force: true });
  });

  const b64 = Buffer.from(`svc:${SECRET}`).toString('base64');
  const message = `Deploy with key ${SECRET} please; spaced: ${[...SECRET].join(' ')}; b64: ${b64}`;
  const script = () =>
    stack.fake.script([
      {
        text: 'Decoding it.',
        toolCalls: [{ name: 'terminal', arguments: { command: `printf '%s' '${b64}' | base64 -d; echo` } }],
      },
      { text: `Your key is ${SECRET.toUpperCase()} (hex ${Buffer.from(SECRET).toString('hex')}).` },
    ]);

  /** Run `herald` as the user would, on the worker's machine (the same environment). */
  async function cli(args: string[]): Promise<string> {
    const p = spawnHerald(args, env);
    const code = await Promise.race([p.exited, new Promise((r) => setTimeout(() => r('timeout'), 120_000))]);
    if (code !== 0) p.kill();
    assert.equal(code, 0, `${p.output()}\nworker:\n${worker.output().slice(-3000)}`);
    return p.output();
  }

  it(
    'shows a redacted title in the search attributes and memo of a conversation started with its message',
    { timeout: 240_000 },
    async () => {
      script();
      const out = await cli(['start', message, '--session', 'redact-1']);
      outputs.push(out);
      const handle = stack.temporal.workflow.getHandle('session-redact-1');
      await eventually(
        async () =>
          (await stack.transcript('redact-1')).some(
            (m) => m.role === 'assistant' && /Your key/.test(String(m.content)),
          ),
        120_000,
      );
      await eventually(async () =>
        JSON.stringify((await handle.describe()).searchAttributes).includes('Deploy with key'),
      );
      const d = await handle.describe();
      assert.match(JSON.stringify(d.searchAttributes), /Deploy with key \[REDACTED:MY_SERVICE_CREDS\] please/);
      assert.match(JSON.stringify(d.memo), /Deploy with key \[REDACTED:MY_SERVICE_CREDS\] please/);
    },
  );

  it(
    'shows a redacted title of a conversation whose first message came as an update (herald start --wait)',
    { timeout: 240_000 },
    async () => {
      script();
      outputs.push(await cli(['start', message, '--session', 'redact-2', '--wait', '--json']));
      const handle = stack.temporal.workflow.getHandle('session-redact-2');
      await eventually(async () =>
        JSON.stringify((await handle.describe()).searchAttributes).includes('Deploy with key'),
      );
      assert.match(
        JSON.stringify((await handle.describe()).searchAttributes),
        /Deploy with key \[REDACTED:MY_SERVICE_CREDS\] please/,
      );
    },
  );

  it(
    'redacts the title and memo on the worker when the client did not know the secret',
    { timeout: 240_000 },
    async () => {
      // This test process's client knows no MY_SERVICE_CREDS: the message reaches the workflow as typed.
      script();
      await stack.herald.start({ sessionId: 'redact-3', message });
      const handle = stack.temporal.workflow.getHandle('session-redact-3');
      await eventually(
        async () => JSON.stringify((await handle.describe()).searchAttributes).includes('Deploy with key'),
        120_000,
      );
      await eventually(
        async () =>
          (await stack.transcript('redact-3')).some(
            (m) => m.role === 'assistant' && /Your key/.test(String(m.content)),
          ),
        120_000,
      );
      const d = await handle.describe();
      assert.match(JSON.stringify(d.searchAttributes), /Deploy with key \[REDACTED:MY_SERVICE_CREDS\] please/);
      assert.match(JSON.stringify(d.memo), /Deploy with key \[REDACTED:MY_SERVICE_CREDS\] please/);
      assert.deepEqual(
        [
          ...leaks('search attributes', JSON.stringify(d.searchAttributes)),
          ...leaks('memo', JSON.stringify(d.memo)),
          ...leaks('transcript', JSON.stringify(await stack.transcript('redact-3'))),
        ],
        [],
      );
    },
  );

  it(
    'keeps the pasted secret, in any disguise, out of search attributes, memo, history, every table and the log',
    { timeout: 120_000 },
    async () => {
      // The detector itself finds what it looks for.
      assert.ok(leaks('the message', message).length > 3);
      const places: Array<[string, string]> = [['CLI output', outputs.join('\n')]];
      for (const id of ['redact-1', 'redact-2']) {
        const handle = stack.temporal.workflow.getHandle(`session-${id}`);
        const d = await handle.describe();
        places.push([`search attributes of ${id}`, JSON.stringify(d.searchAttributes)]);
        places.push([`memo of ${id}`, JSON.stringify(d.memo ?? {})]);
        places.push([`history of ${id}`, allText(await handle.fetchHistory()).join('\n')]);
      }
      const tables = await stack.db.query<{ tablename: string }>(
        "SELECT tablename FROM pg_tables WHERE schemaname = 'public'",
      );
      for (const { tablename } of tables.rows) {
        const rows = await stack.db.query(`SELECT row_to_json(t)::text AS j FROM "${tablename}" t`);
        places.push([`table ${tablename}`, rows.rows.map((r: { j: string }) => r.j).join('\n')]);
      }
      worker.kill('SIGTERM');
      await worker.exited;
      places.push(['worker log', worker.output()]);
      assert.deepEqual(
        places.flatMap(([where, text]) => leaks(where, text)),
        [],
      );
      // The redactor said what it removed: in the message, the tool result and the reply.
      const transcript = JSON.stringify(await stack.transcript('redact-1'));
      assert.ok(transcript.split(MARK).length > 4, transcript);
    },
  );
});
