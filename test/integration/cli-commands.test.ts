/**
 * The everyday `herald` commands as a user runs them (docs/cli.md), through the real CLI in a child
 * process against a live stack: watch, sessions, send to ended and compressed sessions, memory,
 * tools, answer and doctor.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { freePort } from '../../runtime/ports.js';
import type { RecordedRequest } from '../support/fake-provider.js';
import { runHerald, spawnHerald } from '../support/processes.js';
import type { TestStack } from '../support/stack.js';
import { FAKE_MODEL, createTestStack, eventually } from '../support/stack.js';

type WireMessage = { role: string; content: string | null };
const messagesOf = (r: RecordedRequest) => (r.body.messages ?? []) as WireMessage[];
const isSummaryCall = (r: RecordedRequest) =>
  (messagesOf(r)[0]?.content ?? '').startsWith('You compress the earlier part');
const wordy = (s: string) => `${s} ${'words '.repeat(40)}`;

/** A Herald home of its own with this config file, for commands that read the config. */
function homeWith(configYaml: string): string {
  const home = mkdtempSync(join(tmpdir(), 'herald-cli-home-'));
  writeFileSync(join(home, 'config.yaml'), configYaml);
  return home;
}

describe('herald CLI commands', () => {
  let stack: TestStack;
  let ws: string;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    stack = await createTestStack();
    ws = join(stack.workspaces, 'ws');
    mkdirSync(ws, { recursive: true });
    env = stack.workerEnv();
  });
  after(async () => {
    await stack.close();
  });
  beforeEach(() => {
    stack.fake.reset();
  });

  it('a message to a conversation whose task queue no worker polls is refused at once, naming the queue', async () => {
    const queue = `nobody-polls-${randomBytes(3).toString('hex')}`;
    // A conversation left on a queue nobody serves (as the demo's were after it exited).
    await stack.temporal.workflow.start('conversation', {
      taskQueue: queue,
      workflowId: 'session-orphan',
      args: [{ sessionId: 'orphan', cwd: ws }],
    });
    const started = Date.now();
    await assert.rejects(stack.herald.conversation('orphan').send('hello?'), (err: Error) => {
      assert.equal(err.name, 'NoWorkerError');
      assert.match(err.message, new RegExp(`no worker polls task queue ${queue} — start \`herald dev\``));
      return true;
    });
    assert.ok(Date.now() - started < 15_000, `said so in ${Date.now() - started} ms, not after a silent wait`);
    const cli = await runHerald(['send', 'orphan', 'hello?'], env);
    assert.equal(cli.code, 1);
    assert.match(cli.stderr, new RegExp(`no worker polls task queue ${queue}`));
    // On the stack's own queue a worker polls: the same client sends as usual.
    stack.fake.script([{ text: 'here' }]);
    assert.equal((await stack.herald.conversation('served').send('hi', { start: { cwd: ws } })).final_response, 'here');
    await stack.temporal.workflow.getHandle('session-orphan').terminate('test done');
  });

  it('watch follows from the current turn on stdout: user messages, tool lines and replies in order', async () => {
    stack.fake.script([
      { text: 'First answer.' },
      { toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
      { text: 'Second answer.' },
      { text: 'Third answer.' },
    ]);
    writeFileSync(join(ws, 'notes.txt'), 'a note\n');
    const conv = stack.herald.conversation('w-live');
    await conv.send('first question', { start: { cwd: ws } });
    await conv.send('second question');

    const watch = spawnHerald(['watch', 'w-live'], env);
    let stdout = '';
    let stderr = '';
    watch.child.stdout!.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    watch.child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    await watch.waitFor('Second answer.');
    await conv.send('third question');
    await watch.waitFor('Third answer.');
    watch.kill('SIGINT');
    assert.equal(await watch.exited, 0, watch.output());

    const order = [
      '› second question',
      '⚙ read_file',
      '✓ read_file',
      'Second answer.',
      '› third question',
      'Third answer.',
    ];
    const at = order.map((s) => stdout.indexOf(s));
    assert.ok(
      at.every((i, k) => i >= 0 && (k === 0 || i > at[k - 1]!)),
      `in order on stdout: ${JSON.stringify(at)}\n${stdout}`,
    );
    assert.ok(!stdout.includes('first question'), `starts at the current turn:\n${stdout}`);
    assert.equal(stderr.trim(), '', 'nothing on stderr');

    // --from 0 is the whole history; an ended session is replayed and the watch exits.
    await conv.end('done');
    await stack.temporal.workflow.getHandle('session-w-live').result();
    const all = await runHerald(['watch', 'w-live', '--from', '0'], env);
    assert.equal(all.code, 0, all.stderr);
    assert.ok(all.stdout.indexOf('› first question') < all.stdout.indexOf('› third question'), all.stdout);
    assert.match(all.stdout, /\(session w-live ended /);
  });

  it('watch of an unknown session is an error naming it', async () => {
    const r = await runHerald(['watch', 'nosuch'], env);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /no session "nosuch"/);
  });

  it('sessions prints a header, aligned columns and each conversation status', async () => {
    stack.fake.script([{ text: 'Hi.' }, { text: 'Bye.' }]);
    await stack.herald.conversation('s-idle').send('hello idle', { start: { cwd: ws } });
    const ended = stack.herald.conversation('s-ended');
    await ended.send('hello ended', { start: { cwd: ws } });
    await ended.end('finished');
    await stack.temporal.workflow.getHandle('session-s-ended').result();

    const out = await eventually(async () => {
      const r = await runHerald(['sessions'], env);
      assert.equal(r.code, 0, r.stderr);
      return /^s-idle +idle /m.test(r.stdout) && r.stdout;
    });
    const lines = out.split('\n');
    assert.match(lines[0]!, /^SESSION +STATUS +STARTED \(UTC\) +MSGS +MODEL +TITLE$/);
    assert.match(
      out,
      new RegExp(`^s-idle +idle +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d +2 +${FAKE_MODEL} +hello idle$`, 'm'),
    );
    assert.match(out, /^s-ended +ended +/m);
    // Aligned: every row's status starts where the header's does.
    const col = lines[0]!.indexOf('STATUS');
    for (const l of lines.filter((x) => x.startsWith('s-'))) assert.match(l.slice(col), /^(idle|ended) /, l);

    // Temporal down: the list still shows, the statuses are unknown and it says why.
    const down = await runHerald(['sessions'], { ...env, TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}` });
    assert.equal(down.code, 0, down.stderr);
    assert.match(down.stdout, /^s-idle +unknown /m);
    assert.match(down.stderr, /statuses unknown: cannot reach Temporal/);
  });

  it('send to an ended session says it ended and how to start a new one', async () => {
    stack.fake.script([{ text: 'Hi.' }]);
    const conv = stack.herald.conversation('e-over');
    await conv.send('hello', { start: { cwd: ws } });
    await conv.end('finished');
    await stack.temporal.workflow.getHandle('session-e-over').result();
    const r = await runHerald(['send', 'e-over', 'are you there?'], env);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /session e-over ended .*takes no more messages; start a new conversation with `herald start/,
    );
  });

  it('after `herald compress`, state names the context session and send takes that id', async () => {
    stack.fake.respond((req) =>
      isSummaryCall(req) ? { text: 'SUMMARY: small talk.' } : { text: wordy(`reply ${stack.fake.requests.length}`) },
    );
    const conv = stack.herald.conversation('c-demo');
    for (const t of ['one', 'two', 'three', 'four', 'five', 'six']) await conv.send(t, { start: { cwd: ws } });
    const c = await runHerald(['compress', 'c-demo', '--json'], env);
    assert.equal(c.code, 0, c.stderr);
    assert.equal((JSON.parse(c.stdout) as { session_id: string }).session_id, 'c-demo.1');

    const state = await runHerald(['state', 'c-demo'], env);
    assert.match(state.stdout, /^session c-demo \(context c-demo\.1\) · idle/m);
    const sent = await runHerald(['send', 'c-demo.1', 'still there?', '--json'], env);
    assert.equal(sent.code, 0, sent.stderr);
    assert.equal((JSON.parse(sent.stdout) as { session_id: string }).session_id, 'c-demo.1');
    const viaLineage = await runHerald(['state', 'c-demo.1'], env);
    assert.match(viaLineage.stdout, /^session c-demo \(context c-demo\.1\)/m);

    const list = await runHerald(['sessions'], env);
    assert.match(list.stdout, /^c-demo +\S+ .*\(compressed 1×\)$/m);
    assert.doesNotMatch(list.stdout, /^c-demo\.1 /m, 'one line per conversation');
  });

  it('memory add confirms; export creates a missing folder and defaults under the Herald home', async () => {
    const added = await runHerald(['memory', 'add', 'memory', 'The user likes tea.'], env);
    assert.equal(added.code, 0, added.stderr);
    assert.match(added.stderr, /^added to memory \(\d+ of 2200 characters\)$/m);

    const target = join(mkdtempSync(join(tmpdir(), 'herald-export-')), 'missing', 'deeper');
    const exported = await runHerald(['memory', 'export', target], env);
    assert.equal(exported.code, 0, exported.stderr);
    assert.match(readFileSync(join(target, 'MEMORY.md'), 'utf8'), /- The user likes tea\./);
    assert.ok(existsSync(join(target, 'USER.md')));
    assert.match(exported.stderr, new RegExp(`wrote ${target}/MEMORY.md`));

    const byDefault = await runHerald(['memory', 'export'], env);
    assert.equal(byDefault.code, 0, byDefault.stderr);
    const home = join(stack.home, 'memory-export');
    assert.match(byDefault.stderr, new RegExp(`wrote ${home}/MEMORY.md`));
    assert.ok(existsSync(join(home, 'MEMORY.md')));
  });

  it("tools honours the config's tools.toolsets", async () => {
    const home = homeWith('tools:\n  toolsets: [file, todo]\n');
    const r = await runHerald(['tools'], { ...env, HERALD_HOME: home });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^toolsets: file, todo \(from tools\.toolsets in .*config\.yaml\)$/m);
    assert.match(r.stdout, /^✓ todo /m);
    assert.match(r.stdout, /^✓ read_file /m);
    assert.match(r.stdout, /^✗ terminal .*toolset "terminal" is not enabled/m);
    // --toolsets still overrides the config.
    const chosen = await runHerald(['tools', '--toolsets', 'terminal'], { ...env, HERALD_HOME: home });
    assert.match(chosen.stdout, /^✗ todo .*not enabled/m);
  });

  it('answer confirms which question it answered', async () => {
    stack.fake.script([
      { toolCalls: [{ name: 'clarify', arguments: { question: 'Which database?', choices: ['postgres', 'sqlite'] } }] },
      { text: 'Using postgres.' },
    ]);
    const conv = stack.herald.conversation('a-clarify');
    const pending = conv.send('set up a database', { start: { cwd: ws } });
    const s = await eventually(async () => {
      const st = await conv.state();
      return st.status === 'awaiting_clarify' && st;
    });
    const r = await runHerald(['answer', 'a-clarify', 'postgres'], env);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr.trim(), `answered ${s.clarify!.request_id}`);
    assert.equal((await pending).final_response, 'Using postgres.');
  });

  it('doctor: Temporal and its version, search attributes, Postgres migrated, a provider that answers and one that refuses, the workspace roots, disk', async () => {
    const dead = await freePort();
    const home = homeWith(
      `fallbackProviders:\n  - { provider: custom, model: other-model, baseUrl: "http://127.0.0.1:${dead}/v1" }\n`,
    );
    const secret = 'sk-doctor-test-secret-0123456789';
    const r = await runHerald(['doctor'], { ...env, HERALD_HOME: home, OPENAI_API_KEY: secret });
    const out = r.stdout;
    assert.match(out, /^✓ ok +temporal +127\.0\.0\.1:\d+, server \d+\.\d+/m);
    assert.match(out, /^✓ ok +search attributes +registered in namespace default/m);
    assert.match(out, /^✓ ok +postgres +/m);
    assert.match(out, /^✓ ok +migrations +schema \d{3}, as expected/m);
    assert.match(
      out,
      new RegExp(
        `^✓ ok +provider custom \\(${FAKE_MODEL}\\) +http://127\\.0\\.0\\.1:\\d+/v1 answers \\(1 models, ${FAKE_MODEL} among them\\); key in OPENAI_API_KEY$`,
        'm',
      ),
    );
    assert.match(
      out,
      /^✗ fail +provider custom \(other-model\) +.*unreachable \(ECONNREFUSED\).*: is the server running\?/m,
    );
    assert.match(out, /^. (ok|warn|fail) +disk +\d+\.\d GB free under /m);
    assert.ok(
      out.split('\n').some((l) => /^✓ ok +workspaces +roots /.test(l) && l.includes(stack.workspaces)),
      `the workspace roots are shown: ${out}`,
    );
    assert.match(out, /^- skip +payloads +plaintext in Temporal history/m);
    assert.equal(r.code, 1, 'a failed check fails the command');
    assert.ok(!out.includes(secret) && !r.stderr.includes(secret), 'the key is never printed');
    const models = stack.fake.requests.find((q) => q.path.endsWith('/models'));
    assert.equal(models?.headers.authorization, `Bearer ${secret}`, 'the model list is asked with the key');

    // --offline calls no provider; with Temporal down its check fails with the fix.
    stack.fake.reset();
    const down = await runHerald(['doctor', '--offline'], {
      ...env,
      HERALD_HOME: home,
      TEMPORAL_ADDRESS: `127.0.0.1:${dead}`,
    });
    assert.equal(down.code, 1);
    assert.match(
      down.stdout,
      new RegExp(`^✗ fail +temporal +cannot reach 127\\.0\\.0\\.1:${dead} .*start \`herald dev\``, 'm'),
    );
    assert.match(down.stdout, /^✓ ok +provider custom \(other-model\) .*endpoint not checked \(--offline\)/m);
    // With a codec key: which key encrypts, which others decrypt.
    const keyed = await runHerald(['doctor', '--offline'], {
      ...env,
      HERALD_HOME: home,
      HERALD_CODEC_KEY: `k2:${randomBytes(32).toString('base64')},k1:${randomBytes(32).toString('base64')}`,
    });
    assert.match(
      keyed.stdout,
      /^✓ ok +payloads +encrypted with key k2 \(AES-256-GCM; also decrypts k1; from HERALD_CODEC_KEY\)/m,
    );
    assert.equal(stack.fake.requests.length, 0, '--offline asks no provider');
  });
});
