/**
 * `npm run bench`: Herald's speed and footprint on the real stack (Temporal dev server, Postgres,
 * an in-process worker, the fake provider over HTTP with zero model latency). Prints:
 *   - orchestration overhead per step (what Herald adds around each model call and tool call),
 *   - the figures docs/reliability.md states, against their goals: per-step overhead p50 from history
 *     timestamps, a 1-step turn's overhead (bench/overhead.ts), failover after a worker's SIGKILL
 *     during a model call (bench/failover.ts),
 *   - history bytes per step against transcript length (must stay flat: history holds references),
 *   - throughput under concurrency,
 *   - streaming latency (provider's first byte → event at a LISTENing client),
 *   - interrupt latency (`stop` signal → the provider's HTTP request aborted),
 *   - delegation round trip (three child agents, one model call each),
 *   - the injection scanner's speed on a large file and on long hostile lines,
 *   - the redactor's cost on a 100 KB tool result,
 *   - the approval gate's command classification (corpus and 2,000-character commands),
 *   - what the tool sandbox adds to a terminal call,
 *   - the built CLI's start-up: `herald --help`, `herald sessions`, the chat prompt (bench/startup.ts),
 *   - the git guard's walk of a workspace with a 50,000-file node_modules,
 *   - a checkpoint snapshot of 200 and 2,000 files with three changed (bench/checkpoints.ts).
 *   - then the scale table (bench/scale.ts: K concurrent conversations on one worker and three, against
 *     the goals; `--no-scale` skips it, `--quick` runs K=50 and 200 on one worker).
 * Not part of `npm test`: numbers, not assertions.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoredEvent } from '../client/events.js';
import { lastEventSeq } from '../store/events.js';
import type { ScriptedReply } from '../test/support/fake-provider.js';
import { createTestStack, eventually, stopSharedInfra } from '../test/support/stack.js';
import { measureFailover } from './failover.js';
import { measureOverhead } from './overhead.js';
import { buildCli, measureStartup } from './startup.js';

const quick = process.argv.includes('--quick');
// Without DATABASE_URL the bench starts its own embedded Postgres (data in a temp folder) and
// Temporal dev server: stopped and removed on every way out — the end, a failure, Ctrl-C.
let stack: Awaited<ReturnType<typeof createTestStack>> | undefined;
let closing: Promise<void> | undefined;
const shutdown = () =>
  (closing ??= (async () => {
    await stack?.close().catch(() => {});
    await stopSharedInfra();
  })());
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    process.stderr.write(`\n${signal}: stopping the bench's servers…\n`);
    void shutdown().finally(() => process.exit(130));
  });
try {
  stack = await createTestStack();
} catch (err) {
  await shutdown();
  throw err;
}
const out: string[] = [];
const say = (line: string) => {
  out.push(line);
  console.log(line);
};
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};
const ms = (n: number) => `${n.toFixed(1)} ms`;

try {
  const ws = join(stack.workspaces, 'bench');
  mkdirSync(ws, { recursive: true });
  writeFileSync(join(ws, 'small.txt'), 'hello\n');
  writeFileSync(join(ws, 'big.txt'), `${'x'.repeat(199)}\n`.repeat(100)); // 20 KB

  say(`Herald benchmark · ${new Date().toISOString()} · node ${process.version}`);
  say('');

  // Warm-up: first workflow task, bundles, connections.
  stack.fake.script([{ text: 'warm' }]);
  await stack.herald.conversation('bench-warm').send('hi', { start: { cwd: ws } });

  // 1. Orchestration overhead per step.
  {
    const steps = quick ? 10 : 30;
    const script: ScriptedReply[] = [];
    // A file of its own per step: the loop guard answers (and then halts) repeats of one call.
    for (let i = 0; i < steps; i++) {
      writeFileSync(join(ws, `small-${i}.txt`), `hello ${i}\n`);
      script.push({ toolCalls: [{ name: 'read_file', arguments: { path: `small-${i}.txt` } }] });
    }
    script.push({ text: 'done' });
    stack.fake.reset().script(script);
    const t0 = performance.now();
    const r = await stack.herald.conversation('bench-steps').send('go', { start: { cwd: ws } });
    const wall = performance.now() - t0;
    const provider = stack.fake.requests.reduce((n, q) => n + ((q.completedAt ?? q.receivedAt) - q.receivedAt), 0);
    const tools = await stack.db.query<{ ms: string }>(
      "SELECT coalesce(sum(duration_ms), 0) AS ms FROM tool_runs WHERE session_id = 'bench-steps'",
    );
    const toolMs = Number(tools.rows[0]!.ms);
    const stepCount = r.api_calls + steps;
    say(`orchestration overhead: ${steps} tool steps + ${r.api_calls} model calls in ${ms(wall)}`);
    say(
      `  per step (model call or tool call): ${ms(wall / stepCount)} total, ${ms((wall - provider - toolMs) / stepCount)} of it Herald + Temporal + Postgres`,
    );
    say('');
  }

  // 1b. The overhead figures of docs/reliability.md: per-step gaps from history timestamps, a 1-step turn.
  {
    const o = await measureOverhead(stack, ws, quick);
    say(
      `per-step orchestration overhead (10-step tool turn, activity end → next activity start in history): p50 ${ms(pct(o.stepGaps, 50))}, p95 ${ms(pct(o.stepGaps, 95))} over ${o.stepGaps.length} gaps (goal p50 ≤ 20 ms)`,
    );
    say(
      `1-step turn overhead (send() wall time − model call, ${o.oneStep.length} turns): p50 ${ms(pct(o.oneStep, 50))}, p95 ${ms(pct(o.oneStep, 95))} (goal ≤ 50 ms); ${o.tasksPerTurn.toFixed(1)} workflow tasks per 1-step turn`,
    );
    say('');
  }

  // 2. History bytes per step against transcript length.
  {
    const turns = quick ? 4 : 10;
    const conv = stack.herald.conversation('bench-history');
    let prevBytes = 0;
    let prevEvents = 0;
    say('history bytes per step vs transcript length (each turn: read a 20 KB file, answer):');
    say('  turn  transcript chars  history bytes  bytes added  per step');
    for (let t = 1; t <= turns; t++) {
      stack.fake
        .reset()
        .script([{ toolCalls: [{ name: 'read_file', arguments: { path: 'big.txt' } }] }, { text: `turn ${t} done` }]);
      await conv.send(`turn ${t}`, { start: { cwd: ws } });
      // The server's own accounting of the run's history size (what the 50 MB limit applies to).
      const info = (await stack.temporal.workflow.getHandle(conv.workflowId).describe()).raw.workflowExecutionInfo;
      const bytes = Number(info?.historySizeBytes ?? 0);
      const events = Number(info?.historyLength ?? 0);
      const chars = await stack.db.query<{ n: string }>(
        "SELECT coalesce(sum(length(content)), 0) AS n FROM messages WHERE session_id = 'bench-history'",
      );
      const added = bytes - prevBytes;
      say(
        `  ${String(t).padStart(4)}  ${chars.rows[0]!.n.padStart(16)}  ${String(bytes).padStart(13)}  ${String(added).padStart(11)}  ${String(Math.round(added / 3)).padStart(8)}`,
      );
      prevBytes = bytes;
      prevEvents = events;
    }
    say(`  (${prevEvents} history events; a turn here is 3 steps: user message, 2 model calls, 1 tool call, epilogue)`);
    say('');
  }

  // 3. Throughput under concurrency.
  {
    const n = quick ? 10 : 40;
    stack.fake.reset().respond((req) => {
      const msgs = req.body.messages as Array<{ role: string }>;
      return msgs[msgs.length - 1]!.role === 'tool'
        ? { text: 'ok' }
        : { toolCalls: [{ name: 'read_file', arguments: { path: 'small.txt' } }] };
    });
    const t0 = performance.now();
    const latencies = await Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const s = performance.now();
        await stack.herald.conversation(`bench-conc-${i}`).send('go', { start: { cwd: ws } });
        return performance.now() - s;
      }),
    );
    const wall = performance.now() - t0;
    say(`throughput: ${n} concurrent conversations, 1 turn each (2 model calls + 1 tool), one worker`);
    say(
      `  ${(n / (wall / 1000)).toFixed(1)} turns/s, ${((n * 3) / (wall / 1000)).toFixed(1)} steps/s; turn latency p50 ${ms(pct(latencies, 50))}, p95 ${ms(pct(latencies, 95))}`,
    );
    say('');
    stack.fake.respond(undefined);
  }

  // 4. Streaming latency: provider first byte → event at a LISTENing client.
  {
    const samples: number[] = [];
    for (let i = 0; i < (quick ? 5 : 20); i++) {
      stack.fake.reset().script([{ text: 'streamed reply here', chunkDelayMs: 20 }]);
      const conv = stack.herald.conversation(`bench-stream-${i}`);
      let firstSeen: number | undefined;
      const watch = await conv.watch(
        (e: StoredEvent) => {
          if (e.kind === 'text.delta' && firstSeen === undefined) firstSeen = Date.now();
        },
        await lastEventSeq(stack.db, conv.sessionId),
      );
      await conv.send('stream', { start: { cwd: ws } });
      await eventually(() => firstSeen !== undefined, 5000);
      await watch.stop();
      samples.push(firstSeen! - stack.fake.requests[0]!.firstChunkAt!);
    }
    say(
      `first token (provider's first output frame → LISTEN client; the first delta is not batched): p50 ${ms(pct(samples, 50))}, p95 ${ms(pct(samples, 95))} (goal ≤ 10 ms)`,
    );
  }

  // 5. Interrupt latency: `stop()` (signal, then the stop notice) → provider HTTP request aborted.
  {
    const samples: number[] = [];
    const returned: number[] = [];
    for (let i = 0; i < (quick ? 5 : 20); i++) {
      stack.fake.reset().script([{ text: 'slow', hangAfterChunks: 2 }]);
      const conv = stack.herald.conversation(`bench-stop-${i}`);
      const pending = conv.send('slow', { start: { cwd: ws } });
      const req = await stack.fake.waitForRequests(1);
      await new Promise((r) => setTimeout(r, 150));
      const t0 = Date.now();
      await conv.stop();
      returned.push(Date.now() - t0);
      await pending;
      await eventually(() => req.abortedAt !== undefined, 5000);
      samples.push(req.abortedAt! - t0);
    }
    say(
      `interrupt latency (stop() → HTTP request aborted, through the stop notice): p50 ${ms(pct(samples, 50))}, p95 ${ms(pct(samples, 95))} (goal p95 ≤ 50 ms), max ${ms(Math.max(...samples))}; stop() itself (signal accepted, notice sent) p50 ${ms(pct(returned, 50))}, p95 ${ms(pct(returned, 95))}`,
    );
  }

  // 6. Delegation: a parent hands three tasks to child agents, each answering in one model call.
  {
    const samples: number[] = [];
    for (let i = 0; i < (quick ? 2 : 5); i++) {
      stack.fake.reset().respond((req) => {
        const messages = req.body.messages as Array<{ role: string; content: string | null }>;
        if (messages.some((m) => m.content?.startsWith('YOUR TASK'))) return { text: 'child report' };
        if (messages.at(-1)!.role === 'user')
          return {
            toolCalls: [
              { name: 'delegate_task', arguments: { tasks: [{ goal: 'one' }, { goal: 'two' }, { goal: 'three' }] } },
            ],
          };
        return { text: 'parent done' };
      });
      await stack.herald.conversation(`bench-delegate-${i}`).send('delegate', { start: { cwd: ws } });
      const parentCalls = stack.fake.requests.filter(
        (q) => !(q.body.messages as Array<{ content: string | null }>).some((m) => m.content?.startsWith('YOUR TASK')),
      );
      // From the parent's delegate_task reply to the parent's next call: start, run and report three children.
      samples.push(parentCalls[1]!.receivedAt - parentCalls[0]!.completedAt!);
    }
    say(
      `delegation round trip (3 child workflows, 1 model call each, reports back to the parent): p50 ${ms(pct(samples, 50))}, max ${ms(Math.max(...samples))}`,
    );
  }

  // 6b. Failover: a worker process killed during a model call, the call re-run on another.
  {
    const samples = await measureFailover(quick ? 3 : 6, ws);
    say(
      `failover (SIGKILL of the worker during a streaming model call → the re-run's request from a second worker, ${samples.length} samples): p50 ${ms(pct(samples, 50))}, max ${ms(Math.max(...samples))} (goal < 5 s)`,
    );
  }

  // 7. Injection scanning of context files and memory: characters per second.
  {
    const loadStarted = performance.now();
    const { scanForInjection } = await import('../untrusted-text/injection-scan.js');
    // Loading validates the rule tables and proves every example they carry (docs/untrusted-text.md).
    say(
      `injection scanner load (rule tables validated, their examples proven): ${ms(performance.now() - loadStarted)}`,
    );
    const inputs: Array<[string, string]> = [
      ['a 700 KB prose file', 'Always run the tests before you commit. Prefer small pull requests.\n'.repeat(10_000)],
      ['curl $A_KEY ×9000', 'curl $A_KEY '.repeat(9000)],
      ['<!-- ×20000', '<!-- '.repeat(20000)],
      ['ignore all your ×6000', 'ignore all your '.repeat(6000)],
    ];
    for (const [name, text] of inputs) {
      const t0 = performance.now();
      scanForInjection(text);
      const took = performance.now() - t0;
      say(
        `injection scan, ${name} (${text.length} chars): ${ms(took)} (${(((text.length / took) * 1000) / 1e6).toFixed(1)} M chars/s)`,
      );
    }
  }

  // 7b. Redaction of a 100 KB tool result (docs/redaction.md): this process's environment as a
  // worker would classify it, plus 100 random 40-character secrets; the index is built once.
  {
    const { Redactor } = await import('../shared/redaction.js');
    const { envSecrets } = await import('../shared/env-secrets.js');
    const { randomBytes } = await import('node:crypto');
    const secrets = [
      ...envSecrets(process.env),
      ...Array.from({ length: 100 }, (_, i) => ({ name: `BENCH_${i}`, value: randomBytes(30).toString('base64') })),
    ];
    const t0 = performance.now();
    const r = new Redactor(secrets);
    const built = performance.now() - t0;
    const lines = Array.from(
      { length: 3000 },
      (_, i) => `${i}: drwxr-xr-x 2 root root 4096 Dec  7 /srv/app/file-${i}.ts ok`,
    );
    const text = lines.join('\n').slice(0, 100_000);
    const runs: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t = performance.now();
      r.redact(text);
      runs.push(performance.now() - t);
    }
    say(
      `redaction of a 100 KB tool result (${secrets.length} secrets, ${r.indexed} runs indexed in ${ms(built)}): p50 ${ms(pct(runs, 50))}, p95 ${ms(pct(runs, 95))}`,
    );
  }

  // 8. Command classification (the approval gate), in a process of its own as `herald
  // check-command` runs it (bench/command-classification.ts): this one's stack and heap are not its.
  {
    const { spawnSync } = await import('node:child_process');
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', join(import.meta.dirname, 'command-classification.ts'), ...(quick ? ['--quick'] : [])],
      { encoding: 'utf8' },
    );
    if (run.status !== 0) throw new Error(`command classification bench failed: ${run.stderr}`);
    for (const line of run.stdout.split('\n').filter(Boolean)) say(line);
  }

  // 9. The tool sandbox's cost per terminal call: the same command with and without bubblewrap.
  {
    const { terminalTool } = await import('../activities/tools/terminal.js');
    const { testSandbox } = await import('../test/support/tool-context.js');
    const tool = terminalTool({ timeoutSeconds: 30, maxOutputChars: 10_000 });
    const run = async (mode: 'required' | 'off') => {
      const sandbox = testSandbox({ mode });
      const signal = new AbortController().signal;
      const samples: number[] = [];
      for (let i = 0; i < (quick ? 10 : 40); i++) {
        const t0 = performance.now();
        await tool.handler({ command: 'true' }, { cwd: ws, signal, heartbeat: () => {}, sandbox });
        samples.push(performance.now() - t0);
      }
      return samples;
    };
    let sandboxed: number[] | undefined;
    try {
      sandboxed = await run('required');
    } catch (err) {
      say(`sandbox cost: not measured (${(err as Error).message.split('\n')[0]})`);
    }
    const bare = await run('off');
    if (sandboxed)
      say(
        `terminal call \`true\`: sandboxed p50 ${ms(pct(sandboxed, 50))} p99 ${ms(pct(sandboxed, 99))}; unsandboxed p50 ${ms(pct(bare, 50))}; sandbox cost p50 ${ms(pct(sandboxed, 50) - pct(bare, 50))} (goal < 30 ms)`,
      );
  }

  // 10. The built CLI's start-up (bench/startup.ts), against the stack's Temporal and Postgres.
  {
    try {
      buildCli();
      const s = await measureStartup(stack.workerEnv(), ws, quick ? 3 : 10);
      const line = (what: string, xs: number[], goal: string) =>
        say(`${what}: p50 ${ms(pct(xs, 50))}, max ${ms(Math.max(...xs))} over ${xs.length} runs (goal ${goal})`);
      say('built CLI start-up (spawn → exit, or → the chat prompt):');
      line('  herald --help', s.help, '≤ 800 ms');
      line('  herald sessions', s.sessions, '≤ 800 ms');
      line('  herald chat, to the prompt', s.chatPrompt, '≤ 1,500 ms');
    } catch (err) {
      say(`CLI start-up: not measured (${(err as Error).message.split('\n')[0]})`);
    }
  }

  // 11. The git guard's walk of a workspace with a 50,000-file node_modules (it runs before and after every call).
  {
    const { findRepositories } = await import('../sandbox/git-repos.js');
    const { snapshotGit } = await import('../sandbox/git-guard.js');
    const big = mkdtempSync(join(tmpdir(), 'herald-bench-git-'));
    try {
      for (let d = 0; d < 5000; d++) {
        const dir = join(big, 'node_modules', `pkg${d % 500}`, `lib${d}`);
        mkdirSync(dir, { recursive: true });
        for (let f = 0; f < 10; f++) writeFileSync(join(dir, `f${f}.js`), '');
      }
      const walks: number[] = [];
      const checks: number[] = [];
      let entries = 0;
      for (let i = 0; i < (quick ? 3 : 10); i++) {
        const scan = findRepositories(big);
        entries = scan.entries;
        walks.push(scan.ms);
        const t0 = performance.now();
        snapshotGit(big);
        checks.push(performance.now() - t0);
      }
      say(
        `git guard walk, ${entries.toLocaleString('en')} entries (a 50,000-file node_modules): p50 ${ms(pct(walks, 50))}; whole check p50 ${ms(pct(checks, 50))} (twice per sandboxed call)`,
      );
    } finally {
      rmSync(big, { recursive: true, force: true });
    }
  }

  // 12. A checkpoint snapshot of 200 and 2,000 files with a few changed (bench/checkpoints.ts).
  {
    const { describeSnapshotCost, measureSnapshots } = await import('./checkpoints.js');
    for (const files of [200, 2000]) say(describeSnapshotCost(await measureSnapshots(files, quick ? 5 : 20)));
  }
} finally {
  await shutdown();
}
// The scale table (bench/scale.ts, also `npm run bench:scale`) runs after the rest, on servers of its
// own: K=50 and 200 on one worker with --quick, the full set (K=50/200/500 on 1 and 3
// workers) otherwise; `--no-scale` skips it.
if (!process.argv.includes('--no-scale')) {
  const { spawnSync } = await import('node:child_process');
  const scaleArgs = quick ? ['--k=50,200', '--workers=1'] : [];
  const run = spawnSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'scale.ts'), ...scaleArgs], {
    stdio: 'inherit',
  });
  if (run.status !== 0) say(`scale bench: exited with ${run.status ?? run.signal}`);
}
process.exit(0);
