/**
 * The tool sandbox and the secrets boundary (docs/tool-sandbox.md), end to end, with approvals off so
 * that only the boundary counts. A worker process holds real-looking secrets (provider and pool
 * keys, PGPASSWORD, AWS and GitHub tokens, a DATABASE_URL password) and a home full of credentials;
 * the model runs the known escape probes and the attack corpus through the real `terminal` tool. Every
 * probe must fail, and afterwards nothing the worker recorded — Temporal history, every Postgres
 * table, the event stream, the worker log — holds any of the secrets, also when the provider's 401
 * echoes the key and when the model repeats it. Real work (npm test, git commit with an existing
 * hook, pytest, a compiler, pipes, background jobs) still works in the workspace.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PROJECT_ROOT } from '../../runtime/paths.js';
import { MIN_SECRET_LENGTH } from '../../shared/redaction.js';
import type { HeraldProcess } from '../support/processes.js';
import { spawnHerald } from '../support/processes.js';
import type { ProbeVerdict } from '../support/run-probes.js';
import type { Plant } from '../support/sandbox-probes.js';
import {
  connectionCounter,
  freshWorkspace,
  leaksIn,
  loadProbes,
  plantMachine,
  secretForms,
  treeState,
} from '../support/sandbox-probes.js';
import type { TestStack } from '../support/stack.js';
import { createTestStack, eventually } from '../support/stack.js';
import { allText } from '../support/all-text.js';

/**
 * Probes whose own ESCAPED line is not an escape, with the host-side check that decides instead
 * (each probe still counts as escaped if any host check fails).
 */
const ESCAPED_LINE_IS_NOT_AN_ESCAPE: Record<string, string> = {
  'home-all-passwd-homes':
    'lists /root: the toolchains on PATH (/root/.pyenv, /root/.cargo) are shown read-only at their real paths; nothing else of that home is',
  'proc-exe-overwrite':
    '`test -w /proc/1/exe` is true for a root worker, but the binary is busy (ETXTBSY) while the sandbox lives; the host copy is compared',
  'git-commondir-redirect':
    'works inside the call; the host-side check finds .git/commondir restored and host git unaffected',
  'git-submodule-fsmonitor':
    'fires inside the sandbox; host git afterwards runs nothing (the new repository was stripped)',
};

describe('tool sandbox and secrets', () => {
  let stack: TestStack;
  let plant: Plant;
  let worker: HeraldProcess;
  let databaseUrl: string;
  let root: string;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'herald-sandbox-it-'));
    plant = plantMachine(root);
    // The probes' workspaces (freshWorkspace) lie under <root>/ws: the worker's root for them.
    mkdirSync(join(root, 'ws'), { recursive: true });
    stack = await createTestStack({
      worker: false,
      workspaceRoots: [join(root, 'ws')],
      configYaml: [
        'approvals:',
        '  mode: "off"',
        'providers:',
        '  custom:',
        '    credentialPool: [OPENAI_API_KEY, KEY_A]',
        'secrets:',
        '  env: [HERALD_EXTRA_SECRET]',
        'tools:',
        '  terminal:',
        '    timeoutSeconds: 20',
        'sandbox:',
        '  limits:',
        '    processes: 256',
        '    memoryMb: 4096',
        '',
      ].join('\n'),
    });
    writeFileSync(join(stack.home, 'keys.txt'), `token ${plant.fileSecrets.heraldHome}\n`);
    // Trust auth ignores the password, so the real database still answers; it is a secret all the same.
    const url = new URL(stack.databaseUrl);
    if (!url.password) url.password = `dbpw-${plant.token}`;
    databaseUrl = url.toString();
    worker = spawnHerald(['worker'], {
      ...stack.workerEnv(),
      ...plant.secretEnv,
      DATABASE_URL: databaseUrl,
      HOME: plant.realHome,
    });
    await worker.waitFor('worker polling');
  });

  after(async () => {
    worker?.kill();
    await stack?.close();
    rmSync(root, { recursive: true, force: true });
  });

  // The embedded Postgres has a fixed, published password ("herald", on loopback only): it is no
  // secret, and the redactor ignores values that short. A real DATABASE_URL password is one.
  const dbPassword = () => {
    const pw = new URL(databaseUrl).password;
    return pw.length >= MIN_SECRET_LENGTH ? [pw] : [];
  };
  const secrets = () => secretForms(plant, dbPassword()).filter((f) => !f.name.includes('(hex)') || f.form.length > 0);

  it('refuses every known escape probe with a clear message, end to end', async () => {
    const ws = freshWorkspace(plant, 'review');
    writeFileSync(join(ws, '.git/hooks/pre-commit'), '#!/bin/sh\necho hook-ran > hook.out\n', { mode: 0o755 });
    const listener = await connectionCounter();
    // A failed assertion must not leave the listener holding the test process open.
    try {
      const probes: Array<[id: string, command: string, expect: RegExp]> = [
        ['environ of the worker', `tr '\\0' '\\n' < /proc/$PPID/environ; env`, /^(?![\s\S]*sk-test-)/],
        ['every environ', `cat /proc/*/environ | tr '\\0' '\\n' | grep -c = ; echo done`, /done/],
        ['the Herald home', `cat ${stack.home}/keys.txt; ls ${stack.home}`, /No such file or directory/],
        ['ssh keys', `cat ~/.ssh/id_ed25519 ${plant.realHome}/.ssh/id_ed25519`, /No such file or directory/],
        ['write outside', `touch ${plant.outside}/pwned`, /Read-only file system|No such file|Permission denied/],
        ['plant a hook', 'printf "#!/bin/sh\\ntouch /tmp/owned\\n" > .git/hooks/post-commit', /Read-only file system/],
        ['git config', 'git config core.fsmonitor "touch /tmp/owned"', /could not (?:lock|write) config file/],
        [
          'postgres',
          `psql -h 127.0.0.1 -p ${new URL(stack.databaseUrl).port || 5432} -c 'select 1'`,
          /sandbox: tools have no network/,
        ],
        ['the provider', `curl -sS --max-time 5 ${stack.fake.url}/models`, /sandbox: tools have no network/],
        ['the internet', 'curl -sS --max-time 5 https://example.com', /sandbox: tools have no network/],
        [
          'a listener',
          `echo hi > /dev/tcp/127.0.0.1/${listener.port}`,
          /Connection refused|sandbox: tools have no network/,
        ],
        ['a setsid survivor', `(setsid bash -c 'sleep 300; : ${plant.token}' &); echo started`, /started/],
        ['fork until a cap', 'for i in $(seq 400); do sleep 2 & done; wait', /process cap of 256 was reached/],
      ];
      stack.fake.script([
        {
          text: 'Probing.',
          toolCalls: probes.map(([, command]) => ({ name: 'terminal', arguments: { command, timeout: 15 } })),
        },
        // The model repeats a key it saw (here: one it was never shown, to test the redactor alone).
        { text: `Done. By the way, the key is ${plant.secretEnv.OPENAI_API_KEY} and ${plant.secretEnv.GH_PAT}.` },
      ]);
      const result = await stack.herald.conversation('sbx-review').send('probe the sandbox', {
        id: 'sbx-1',
        start: { cwd: ws },
      });
      assert.equal(result.completed, true);
      assert.doesNotMatch(result.final_response ?? '', /sk-test-|ghp_/);
      assert.match(result.final_response ?? '', /\[REDACTED:OPENAI_API_KEY\]/);

      const tools = (await stack.transcript('sbx-review')).filter((m) => m.role === 'tool');
      assert.equal(tools.length, probes.length);
      probes.forEach(([what, , expect], i) => {
        const content = tools[i]!.content ?? '';
        assert.match(content, expect, `${what}: ${content}`);
        assert.deepEqual(leaksIn(content, secrets()), [], `${what} leaked: ${content}`);
      });
      assert.equal(listener.count(), 0, 'no connection reached the host');
      assert.equal(existsSync('/tmp/owned'), false);
      assert.equal(treeState(plant.outside).includes('pwned'), false);
      await eventually(() => !execFileSync('ps', ['-eo', 'args']).toString().includes(plant.token), 5000);
    } finally {
      await listener.close();
    }
  });

  it('lets real work happen in the workspace: npm test, git commit with its hook, pytest, a compiler, pipes, jobs', async () => {
    const ws = freshWorkspace(plant, 'work');
    writeFileSync(join(ws, '.git/hooks/pre-commit'), '#!/bin/sh\necho hook-ran > hook.out\n', { mode: 0o755 });
    writeFileSync(join(ws, 'package.json'), JSON.stringify({ name: 'w', scripts: { test: 'node --test' } }));
    writeFileSync(
      join(ws, 'sum.test.js'),
      "require('node:test')('adds', () => require('node:assert').equal(1 + 1, 2));\n",
    );
    writeFileSync(join(ws, 'test_math.py'), 'def test_adds():\n    assert 1 + 1 == 2\n');
    writeFileSync(join(ws, 'main.c'), '#include <stdio.h>\nint main(void) { printf("compiled\\n"); return 0; }\n');
    const work: Array<[string, RegExp]> = [
      ['npm test 2>&1 | grep -E "^# (pass|fail)"', /# pass 1\n# fail 0/],
      [
        'git add -A && git -c user.name=a -c user.email=a@b commit -qm work && git log --oneline | wc -l && cat hook.out',
        /1\nhook-ran/,
      ],
      ['python3 -m pytest -q test_math.py 2>&1 | tail -2', /1 passed/],
      ['gcc -o main main.c && ./main', /compiled/],
      ['seq 1 100 | grep -c 7 | tr -d " "', /19/],
      ['(sleep 0.2; echo from-the-background) & echo now; wait', /now\nfrom-the-background/],
    ];
    stack.fake.script([
      { toolCalls: work.map(([command]) => ({ name: 'terminal', arguments: { command } })) },
      { text: 'Worked.' },
    ]);
    const result = await stack.herald.conversation('sbx-work').send('do real work', { id: 'w-1', start: { cwd: ws } });
    assert.equal(result.final_response, 'Worked.');
    const tools = (await stack.transcript('sbx-work')).filter((m) => m.role === 'tool');
    work.forEach(([command, expect], i) =>
      assert.match(tools[i]!.content ?? '', expect, `${command}: ${tools[i]!.content}`),
    );
    assert.equal(readFileSync(join(ws, 'hook.out'), 'utf8'), 'hook-ran\n', 'the existing hook ran inside the sandbox');
  });

  it('keeps a 401 that echoes the key out of history, the database and the log', async () => {
    const key = plant.secretEnv.OPENAI_API_KEY;
    stack.fake.script([
      {
        status: 401,
        error: {
          message: `Incorrect API key provided: ${key}. You can find your key at …`,
          type: 'invalid_request_error',
        },
      },
      { status: 401, error: { message: `Incorrect API key provided: ${key}.` } },
      { status: 401, error: { message: `Incorrect API key provided: ${key}.` } },
    ]);
    const result = await stack.herald.conversation('sbx-401').send('hello', { id: 'a-1', start: {} });
    assert.equal(result.failed, true);
    assert.doesNotMatch(result.error ?? '', /sk-test-/);
    assert.match(result.error ?? '', /REDACTED/);
  });

  it('finds none of the secrets in Temporal history, any Postgres table, the events or the worker log', async () => {
    const forms = secrets();
    const places: Array<[string, string]> = [];
    for (const id of ['sbx-review', 'sbx-work', 'sbx-401']) {
      const history = await stack.temporal.workflow.getHandle(`session-${id}`).fetchHistory();
      places.push([`history of ${id}`, allText(history).join('\n')]);
    }
    const tables = await stack.db.query<{ tablename: string }>(
      "SELECT tablename FROM pg_tables WHERE schemaname = 'public'",
    );
    for (const { tablename } of tables.rows) {
      const rows = await stack.db.query(`SELECT row_to_json(t)::text AS j FROM "${tablename}" t`);
      places.push([`table ${tablename}`, rows.rows.map((r: { j: string }) => r.j).join('\n')]);
    }
    places.push(['worker log', worker.output()]);
    const found = places.flatMap(([where, text]) =>
      forms.filter((f) => text.includes(f.form)).map((f) => `${f.name} in ${where}`),
    );
    assert.deepEqual(found, []);
    // And the redactor said what it removed, so nobody wonders where the text went.
    assert.ok(places.some(([, t]) => t.includes('[REDACTED:OPENAI_API_KEY]')));
  });

  it('holds against the whole attack corpus (295 probes, each in a fresh workspace, judged on the host)', async () => {
    const lanes = 3;
    const verdicts: ProbeVerdict[] = [];
    await Promise.all(
      Array.from({ length: lanes }, async (_, lane) => {
        const laneRoot = join(root, `lane-${lane}`);
        mkdirSync(laneRoot, { recursive: true });
        const lanePlant = plantMachine(laneRoot);
        writeFileSync(
          join(lanePlant.heraldHome, 'config.yaml'),
          'secrets:\n  env: [HERALD_EXTRA_SECRET]\nsandbox:\n  limits:\n    memoryMb: 4096\n',
        );
        const planPath = join(laneRoot, 'plan.json');
        writeFileSync(
          planPath,
          JSON.stringify({
            plant: lanePlant,
            pgPort: Number(new URL(stack.databaseUrl).port || 5432),
            providerPort: Number(new URL(stack.fake.url).port),
            timeoutSeconds: 4,
            lane,
            lanes,
          }),
        );
        const child = spawn(
          process.execPath,
          ['--import', 'tsx', join(PROJECT_ROOT, 'test/support/run-probes.ts'), planPath],
          {
            env: {
              ...process.env,
              ...lanePlant.secretEnv,
              HOME: lanePlant.realHome,
              HERALD_HOME: lanePlant.heraldHome,
              HERALD_SANDBOX: 'required',
              DATABASE_URL: databaseUrl,
            },
            stdio: ['ignore', 'pipe', 'pipe'],
          },
        );
        let out = '';
        let err = '';
        child.stdout.on('data', (c: Buffer) => (out += c.toString()));
        child.stderr.on('data', (c: Buffer) => (err += c.toString()));
        const code = await new Promise<number | null>((r) => child.on('exit', r));
        assert.equal(code, 0, err);
        for (const line of out.split('\n').filter(Boolean)) verdicts.push(JSON.parse(line) as ProbeVerdict);
      }),
    );
    assert.equal(verdicts.length, loadProbes().length);
    const escaped = verdicts.filter((v) => {
      const real = v.escaped.filter((e) => !(e === 'ESCAPED' && ESCAPED_LINE_IS_NOT_AN_ESCAPE[v.id]));
      return real.length > 0;
    });
    assert.deepEqual(
      escaped.map((v) => `${v.id}: ${v.escaped.join('; ')}\n${v.output.slice(0, 800)}`),
      [],
      'probes that got out',
    );
  });
});
