/**
 * The documentation's examples, run: every block marked `<!-- example -->` in the README and in
 * docs/ runs in reading order (test/support/docs.ts) against a
 * real stack (Temporal, Postgres, a worker on the task queue `herald`, the real `temporal` and
 * `herald` commands on PATH), and what it prints must match what the README shows. The model is the
 * fake provider answering like the README's "local OpenAI-compatible test server".
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ensureTemporalCli } from '../../runtime/temporal-cli.js';
import type { RecordedRequest, ScriptedReply } from '../support/fake-provider.js';
import { HERALD_BIN } from '../support/processes.js';
import type { ExampleCommand } from '../support/readme-examples.js';
import { jsonSubset, outputMatches, parseExamples } from '../support/readme-examples.js';
import { docFiles, readDoc } from '../support/docs.js';
import type { TestStack } from '../support/stack.js';
import { createTestStack, eventually } from '../support/stack.js';

const MODEL = 'qwen2.5-coder';

/** The README's model: reads main.py when asked to fix it, hangs on "slowly", echoes otherwise. */
function readmeModel(req: RecordedRequest): ScriptedReply {
  const messages = (req.body.messages ?? []) as Array<{ role: string; content?: unknown }>;
  const text = (m: { content?: unknown } | undefined) =>
    typeof m?.content === 'string'
      ? m.content
      : Array.isArray(m?.content)
        ? (m.content as Array<{ text?: string }>).map((p) => p.text ?? '').join('')
        : '';
  const lastUser = text([...messages].reverse().find((m) => m.role === 'user'));
  const afterTool = messages.at(-1)?.role === 'tool';
  if (/Fix the bug in main\.py/.test(lastUser)) {
    if (!afterTool)
      return { text: 'Let me look at main.py.', toolCalls: [{ name: 'read_file', arguments: { path: 'main.py' } }] };
    return { text: 'Found it: `average()` divides by `len(items) + 1`. It should divide by `len(items)`.' };
  }
  if (/slowly/.test(lastUser)) return { text: 'Refactoring', hangAfterChunks: 1 };
  const said = lastUser.split('\n').at(-1) ?? '';
  return { text: `You said: ${said}` };
}

interface Run {
  code: number;
  output: string;
}

function runScript(script: string, env: NodeJS.ProcessEnv, cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-o', 'pipefail', '-e', '-c', script], { env, cwd });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, output });
    });
  });
}

function checkOutput(command: ExampleCommand, output: string, where: string): void {
  if (command.expected === undefined) return;
  if (command.json) {
    const start = output.indexOf('{');
    const actual = JSON.parse(output.slice(start)) as Record<string, unknown>;
    // The README may show a nested part (e.g. the state query's result) of the printed JSON.
    const candidates: unknown[] = [actual, ...Object.values(actual).flat()];
    const expected = JSON.parse(command.expected) as unknown;
    const problems = candidates.map((c) => jsonSubset(expected, c));
    assert.ok(problems.includes(undefined), `${where}: ${problems[0]}\n--- printed:\n${output}`);
    return;
  }
  const m = outputMatches(command.expected, output);
  assert.ok(m.ok, `${where}: the README shows "${m.missing}", which is not in the output:\n${output}`);
}

describe('documentation examples', () => {
  let stack: TestStack;
  let env: NodeJS.ProcessEnv;
  let workspace: string;

  before(async () => {
    workspace = mkdtempSync(join(tmpdir(), 'herald-readme-ws-'));
    writeFileSync(
      join(workspace, 'main.py'),
      'def average(items):\n    return sum(items) / (len(items) + 1)\n\nprint(average([3, 4, 5]))\n',
    );
    stack = await createTestStack({
      env: { HERALD_TASK_QUEUE: 'herald', HERALD_MODEL: MODEL, HERALD_WORKSPACE: workspace },
    });
    stack.fake.respond(readmeModel);
    const bin = join(mkdtempSync(join(tmpdir(), 'herald-readme-bin-')), 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'herald'), `#!/bin/sh\nexec "${process.execPath}" "${HERALD_BIN}" "$@"\n`, { mode: 0o755 });
    symlinkSync(ensureTemporalCli(), join(bin, 'temporal'));
    env = {
      ...stack.workerEnv(),
      PATH: `${bin}${delimiter}${process.env.PATH ?? ''}`,
      NO_COLOR: '1',
      COLUMNS: '200',
    };
  });
  after(async () => {
    await stack.close();
  });

  /**
   * Examples follow each other at a human's pace: the previous turn has finished. The conversations
   * to wait for are the ones the script names and the ones the (eventually consistent) list shows.
   */
  async function settle(script: string): Promise<void> {
    const named = new Set(script.match(/\bsession-[\w.-]+/g) ?? []);
    await eventually(async () => {
      const ids = new Set(named);
      for await (const wf of stack.temporal.workflow.list({
        query: `TaskQueue="herald" AND ExecutionStatus="Running"`,
      }))
        ids.add(wf.workflowId);
      for (const id of ids) {
        const handle = stack.temporal.workflow.getHandle(id);
        const running = await handle
          .describe()
          .then((d) => d.status.name === 'RUNNING')
          .catch(() => false);
        if (!running) continue;
        const state = await handle
          .query<{ status: string; model: string; queued_messages: unknown[] | null }>('state')
          .catch(() => undefined);
        // An empty model: the session is still being prepared, its first message not yet taken.
        if (!state || !['idle', 'ended'].includes(state.status) || !state.model || state.queued_messages?.length)
          return false;
      }
      return true;
    }, 30_000);
  }

  const examples = docFiles().flatMap((file) => parseExamples(readDoc(file)).map((example) => ({ file, example })));

  it('marks the examples it runs', () => {
    assert.ok(examples.length >= 11, `only ${examples.length} documentation examples are marked`);
  });

  for (const { file, example } of examples) {
    it(`${file} line ${example.line}: ${example.commands[0]!.script.split('\n')[0]!.slice(0, 70)}`, async () => {
      for (const command of example.commands) {
        const run = await runScript(command.script, env, workspace);
        // HERALD_README_SHOW=1 prints what each example printed (to bring the README up to date).
        if (process.env.HERALD_README_SHOW) console.log(`$ ${command.script}\n${run.output}`);
        const where = `${file} line ${example.line} (${command.script.split('\n')[0]})`;
        assert.equal(run.code, example.exit, `${where}: exit ${run.code}, expected ${example.exit}:\n${run.output}`);
        checkOutput(command, run.output, where);
        await settle(command.script);
      }
    });
  }
});
