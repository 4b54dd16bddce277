/**
 * `npm run test:real-model`: Herald against a real local model server nobody here wrote —
 * llama.cpp's llama-server with Qwen2.5-Coder (the project's `real-llm.sh`) — through the
 * `llamacpp` preset, default toolsets and default budget. Opt-in and not part of `npm test`: it
 * needs the server (minutes to build the first time) and a CPU to run a model on.
 *
 * The server: REAL_LLM_BASE_URL and REAL_LLM_MODEL when set; else the script REAL_LLM_SCRIPT (default
 * `../shared/tools/real-llm.sh` beside the checkout) is run to start one, and stopped at the end;
 * without either, the run is skipped (exit 0).
 *
 * Scenarios (each in a fresh conversation and workspace):
 *  - file task: "read settings.ini and tell me the value of …": passes when the reply names the
 *    value; counts model calls. Runs REAL_MODEL_RUNS times (default 5); the run fails when fewer
 *    than 4 of 5 succeed (scaled) or any conversation takes more than 8 model calls.
 *  - memory: asked to remember one fact, the memory store holds at most one entry for it.
 *  - re-test: `test_app.py` fails (`add` returns a - b); asked to run it, fix `app.py` and run it
 *    again. Passes when the test passes in the workspace afterwards, a `terminal` run after the last
 *    edit really ran and printed the passing output, no `terminal` call was answered by the loop
 *    guard instead of running, and the turn took at most 10 model calls.
 *  - after a stop: a turn stopped mid-way, then a new question; the reply must not repeat Herald's
 *    notes (the interrupt note, the out-of-band marker).
 * Prints one line per conversation and a summary; exits 1 when a threshold is missed.
 * REAL_MODEL_ONLY=file,memory,retest,stop picks scenarios; REAL_MODEL_CONFIG adds config YAML;
 * REAL_MODEL_TRANSCRIPTS=<dir> writes each conversation's transcript there (system prompt, every
 * message and tool call), to read what the model did.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { TurnResult } from '../common/contract.js';
import { oneLine } from '../common/text.js';
import { PROJECT_ROOT } from '../runtime/paths.js';
import type { TestStack } from '../test/support/stack.js';
import { BUGGY_APP, TEST_APP } from '../test/support/retest-project.js';
import { createTestStack, stopSharedInfra } from '../test/support/stack.js';

interface Server {
  baseUrl: string;
  model: string;
  stop(): void;
}

function startServer(): Server | undefined {
  const { REAL_LLM_BASE_URL: url, REAL_LLM_MODEL: model } = process.env;
  if (url && model) return { baseUrl: url, model, stop: () => {} };
  const script = resolve(process.env.REAL_LLM_SCRIPT ?? join(dirname(PROJECT_ROOT), 'shared', 'tools', 'real-llm.sh'));
  if (!existsSync(script)) return undefined;
  console.log(`starting the model server with ${script} (the first run builds it: minutes) …`);
  const out = execFileSync('bash', [script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const field = (name: string) => new RegExp(`${name}=(\\S+)`).exec(out)?.[1];
  const baseUrl = field('REAL_LLM_BASE_URL');
  const name = field('REAL_LLM_MODEL');
  const pid = Number(field('REAL_LLM_PID'));
  if (!baseUrl || !name) throw new Error(`the model server script printed no REAL_LLM_BASE_URL: ${out}`);
  return {
    baseUrl,
    model: name,
    stop: () => {
      if (pid) process.kill(pid, 'SIGTERM');
    },
  };
}

/** Every scenario's workspace lies in this folder, the stack's declared workspace root. */
const workspaceRoot = mkdtempSync(join(tmpdir(), 'herald-real-'));

function workspace(files: Record<string, string>): string {
  const dir = mkdtempSync(join(workspaceRoot, 'ws-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const SETTINGS = [
  '[server]',
  'host = 0.0.0.0',
  'port = 8421',
  'max_connections = 317',
  '',
  '[logging]',
  'level = info',
  'file = /var/log/app.log',
  '',
].join('\n');

interface Row {
  scenario: string;
  ok: boolean;
  calls: number;
  seconds: number;
  exit: string;
  detail: string;
}

const rows: Row[] = [];

/** With REAL_MODEL_TRANSCRIPTS set: the conversation's sessions, as text, into `<dir>/<name>.txt`. */
async function dumpTranscript(stack: TestStack, conversationId: string, name: string): Promise<void> {
  const dir = process.env.REAL_MODEL_TRANSCRIPTS;
  if (!dir) return;
  const sessions = await stack.db.query<{ id: string; system_prompt: string | null }>(
    'SELECT id, system_prompt FROM sessions WHERE conversation_id = $1 ORDER BY started_at',
    [conversationId],
  );
  const out: string[] = [];
  for (const session of sessions.rows) {
    out.push(`=== session ${session.id}`, `--- system\n${session.system_prompt ?? ''}`);
    const messages = await stack.db.query<{
      seq: number;
      role: string;
      content: string | null;
      tool_calls: unknown;
      tool_name: string | null;
    }>('SELECT seq, role, content, tool_calls, tool_name FROM messages WHERE session_id = $1 ORDER BY seq', [
      session.id,
    ]);
    for (const m of messages.rows) {
      const calls = m.tool_calls ? `\n[tool_calls] ${JSON.stringify(m.tool_calls)}` : '';
      out.push(`--- #${m.seq} ${m.role}${m.tool_name ? ` (${m.tool_name})` : ''}\n${m.content ?? ''}${calls}`);
    }
  }
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}.txt`), `${out.join('\n')}\n`);
}

function report(row: Row): void {
  rows.push(row);
  const mark = row.ok ? 'ok  ' : 'FAIL';
  console.log(
    `${mark} ${row.scenario.padEnd(14)} calls ${String(row.calls).padStart(2)}  ${row.seconds.toFixed(0).padStart(4)} s  ${row.exit.padEnd(20)} ${row.detail}`,
  );
}

/** Herald's own notes and markers, which a reply should never repeat. */
const ECHO = /operation interrupted|out-of-band|\[herald:|\[budget|context summary/i;

/** Send and wait; a `clarify` question the model asks on the way is answered as a terse user would. */
async function send(stack: TestStack, id: string, text: string, cwd: string): Promise<[TurnResult, number]> {
  const t0 = Date.now();
  const conv = stack.herald.conversation(id);
  let done = false;
  const answering = (async () => {
    while (!done) {
      await new Promise((r) => setTimeout(r, 2000));
      const state = await conv.state().catch(() => undefined);
      if (!done && state?.clarify) await conv.answer('No, that is all.').catch(() => {});
    }
  })();
  try {
    const r = await conv.send(text, { start: { cwd } });
    return [r, (Date.now() - t0) / 1000];
  } finally {
    done = true;
    await answering;
  }
}

async function fileTask(stack: TestStack, i: number): Promise<void> {
  const cwd = workspace({
    'settings.ini': SETTINGS,
    'README.md': '# app\n\nA small service. Settings live in settings.ini.\n',
  });
  const id = `real-file-${i}-${Date.now()}`;
  const [r, s] = await send(stack, id, 'Read settings.ini and tell me the value of max_connections.', cwd);
  await dumpTranscript(stack, id, `file-${i + 1}`);
  const reply = r.final_response ?? '';
  const ok = /\b317\b/.test(reply) && !ECHO.test(reply) && r.api_calls <= 8;
  report({
    scenario: `file task ${i + 1}`,
    ok,
    calls: r.api_calls,
    seconds: s,
    exit: r.turn_exit_reason,
    detail: oneLine(r.final_response ?? '', 100),
  });
}

async function memoryTask(stack: TestStack): Promise<void> {
  const cwd = workspace({ 'notes.txt': 'nothing here\n' });
  const id = `real-memory-${Date.now()}`;
  const [r, s] = await send(
    stack,
    id,
    'Please remember for future sessions that I prefer tabs over spaces for indentation.',
    cwd,
  );
  await dumpTranscript(stack, id, 'memory');
  const entries = await stack.db.query<{ content: string }>('SELECT content FROM memory_entries');
  const about = entries.rows.filter((e) => /tab/i.test(e.content));
  report({
    scenario: 'memory',
    ok: about.length === 1,
    calls: r.api_calls,
    seconds: s,
    exit: r.turn_exit_reason,
    detail: `${about.length} entr${about.length === 1 ? 'y' : 'ies'}: ${oneLine(about.map((e) => e.content).join(' | '), 100)}`,
  });
}

/** The most model calls the re-test loop may take (run, read, fix, run, answer — and some slack). */
const RETEST_MAX_CALLS = 10;

async function retestTask(stack: TestStack): Promise<void> {
  const cwd = workspace({ 'app.py': BUGGY_APP, 'test_app.py': TEST_APP });
  const id = `real-retest-${Date.now()}`;
  const [r, s] = await send(
    stack,
    id,
    'The test fails. Run it with `python3 test_app.py`, fix the bug in app.py, then run `python3 test_app.py` again to check that it passes.',
    cwd,
  );
  await dumpTranscript(stack, id, 'retest');
  const messages = await stack.db.query<{ role: string; content: string | null; tool_name: string | null }>(
    `SELECT m.role, m.content, m.tool_name FROM messages m JOIN sessions s ON s.id = m.session_id
      WHERE s.conversation_id = $1 ORDER BY s.started_at, m.seq`,
    [id],
  );
  const tools = messages.rows.filter((m) => m.role === 'tool');
  const lastEdit = tools.findLastIndex((m) => m.tool_name === 'patch' || m.tool_name === 'write_file');
  const runsAfter = tools.slice(lastEdit + 1).filter((m) => m.tool_name === 'terminal');
  const guarded = tools.filter(
    (m) => m.tool_name === 'terminal' && /^\[(Not run again|Refused|Duplicate call):/.test(m.content ?? ''),
  );
  let passes = false;
  try {
    execFileSync('python3', ['test_app.py'], { cwd, stdio: 'ignore', timeout: 30_000 });
    passes = true;
  } catch {
    passes = false;
  }
  const reranPassing = lastEdit >= 0 && runsAfter.some((m) => /all tests passed/.test(m.content ?? ''));
  const reply = r.final_response ?? '';
  report({
    scenario: 're-test',
    ok: passes && reranPassing && guarded.length === 0 && r.api_calls <= RETEST_MAX_CALLS && !ECHO.test(reply),
    calls: r.api_calls,
    seconds: s,
    exit: r.turn_exit_reason,
    detail: `${passes ? 'test passes' : 'test fails'}, ${reranPassing ? 're-run after the fix passed' : 'no passing re-run after a fix'}, ${guarded.length} terminal call(s) not run: ${oneLine(reply, 60)}`,
  });
}

async function afterStop(stack: TestStack): Promise<void> {
  const cwd = workspace({ 'settings.ini': SETTINGS });
  const id = `real-stop-${Date.now()}`;
  const conv = stack.herald.conversation(id);
  const first = conv.send('Read settings.ini, then explain every setting in it in detail.', { start: { cwd } });
  await new Promise((r) => setTimeout(r, 4000));
  await conv.stop('real-model check');
  await first;
  const [r, s] = await send(stack, id, 'What is 2 + 3? Answer with the number only.', cwd);
  await dumpTranscript(stack, id, 'after-stop');
  const reply = r.final_response ?? '';
  const echoes = ECHO.test(reply) || /interrupted|stopped/i.test(reply);
  report({
    scenario: 'after a stop',
    ok: !echoes && /\b5\b/.test(reply),
    calls: r.api_calls,
    seconds: s,
    exit: r.turn_exit_reason,
    detail: oneLine(reply, 100),
  });
}

const server = startServer();
if (!server) {
  console.log('test:real-model skipped: set REAL_LLM_BASE_URL and REAL_LLM_MODEL, or REAL_LLM_SCRIPT (real-llm.sh)');
  process.exit(0);
}
const runs = Number(process.env.REAL_MODEL_RUNS ?? 5);
const only = process.env.REAL_MODEL_ONLY?.split(',');
const wanted = (name: string) => !only || only.includes(name);
let stack: TestStack | undefined;
let code = 0;
try {
  console.log(`model ${server.model} at ${server.baseUrl}`);
  stack = await createTestStack({
    workspaceRoots: [workspaceRoot],
    env: {
      HERALD_PROVIDER: 'llamacpp',
      HERALD_MODEL: server.model,
      HERALD_SANDBOX: process.env.HERALD_TEST_SANDBOX ?? 'auto',
    },
    // REAL_MODEL_CONFIG: more config YAML for an experiment (e.g. `tools: { schemas: { mode: full } }`).
    configYaml: `providers:\n  llamacpp:\n    baseUrl: ${server.baseUrl}\n${process.env.REAL_MODEL_CONFIG ?? ''}\n`,
  });
  if (wanted('file')) for (let i = 0; i < runs; i++) await fileTask(stack, i);
  if (wanted('memory')) await memoryTask(stack);
  if (wanted('retest')) await retestTask(stack);
  if (wanted('stop')) await afterStop(stack);

  const files = rows.filter((r) => r.scenario.startsWith('file task'));
  const passed = files.filter((r) => r.ok).length;
  const needed = Math.ceil((files.length * 4) / 5);
  const maxCalls = Math.max(0, ...files.map((r) => r.calls));
  console.log(
    `\nfile task: ${passed}/${files.length} succeeded (need ${needed}), most model calls ${maxCalls} (limit 8); ` +
      `other scenarios: ${rows.filter((r) => !r.scenario.startsWith('file task') && r.ok).length}/${rows.length - files.length} ok`,
  );
  if (passed < needed || maxCalls > 8 || rows.some((r) => !r.scenario.startsWith('file task') && !r.ok)) code = 1;
} catch (err) {
  console.error(err);
  code = 1;
} finally {
  await stack?.close().catch(() => {});
  await stopSharedInfra().catch(() => {});
  server.stop();
}
process.exit(code);
