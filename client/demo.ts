/**
 * `npm run demo` / `herald demo`: a real multi-turn conversation on the embedded stack, with a
 * scripted stand-in for the model (clearly labelled: no real LLM is called). Everything else is
 * real: Temporal workflow and activities, Postgres transcript, the tools running in a workspace.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pc from 'picocolors';
import type { HeraldConfig } from '../runtime/config.js';
import { loadConfig } from '../runtime/config.js';
import { defaultWorkspaceRoot } from '../runtime/workspace-roots.js';
import { createLogger } from '../runtime/logger.js';
import { FakeProvider } from '../test/support/fake-provider.js';
import type { ScriptedReply } from '../test/support/fake-provider.js';
import { startDevStack } from '../workers/dev-stack.js';
import { NO_KEY } from '../common/endpoint-keys.js';
import { HeraldClient, newSessionId } from './client.js';
import { EventRenderer } from './render.js';

export const DEMO_MODEL = 'herald-demo-script';
const DEMO_TASK_QUEUE = 'herald-demo';

const BUGGY_MAIN = `// Average of a list of numbers.
function average(items) {
  let total = 0;
  for (const x of items) total += x;
  return total / items.length + 1;
}
const result = average([2, 4, 6]);
console.log('average:', result);
if (result !== 4) { console.error('wrong average!'); process.exit(1); }
`;

export const DEMO_SCRIPT: ScriptedReply[] = [
  {
    reasoning: 'Read the file first.',
    text: "I'll start by reading main.js.",
    toolCalls: [{ name: 'read_file', arguments: { path: 'main.js' } }],
  },
  {
    text: 'Let me run it to see the failure.',
    toolCalls: [{ name: 'terminal', arguments: { command: 'node main.js' } }],
  },
  {
    text: 'The average adds 1 after dividing. Fixing it and re-running:',
    toolCalls: [{ name: 'terminal', arguments: { command: "sed -i 's| + 1;|;|' main.js && node main.js" } }],
  },
  {
    text: 'Fixed: `average()` returned `total / items.length + 1`; it now returns `total / items.length`, and `node main.js` prints `average: 4`.',
  },
  {
    text: 'I read `main.js`, ran `node main.js` (it failed with "wrong average!"), removed the stray `+ 1` with `sed`, and ran it again: it passes. (This is the scripted demo model: no real LLM was called.)',
  },
  // Turn 3: a child agent (its own child workflow and session) checks the fix independently.
  {
    text: 'Asking a child agent to check it independently.',
    toolCalls: [
      {
        name: 'delegate_task',
        arguments: {
          goal: 'Run `node main.js` in the workspace and report what it prints and its exit code.',
          context: 'main.js was just fixed; it should print "average: 4" and exit 0.',
        },
      },
    ],
  },
  { toolCalls: [{ name: 'terminal', arguments: { command: 'node main.js; echo "exit code: $?"' } }] },
  { text: '`node main.js` printed `average: 4` and exited with code 0.' },
  {
    text: 'The child agent ran the program on its own and confirmed it: `average: 4`, exit code 0. Its session is linked to this one in `herald sessions` and in the Web UI.',
  },
];

export async function runDemo(o: { once: boolean }): Promise<void> {
  const base = loadConfig();
  const fake = await FakeProvider.start({ label: 'Herald demo provider (scripted, not a real model)' });
  fake.script(DEMO_SCRIPT, DEMO_MODEL);
  // Outside the Herald home (never a workspace), and a root of the demo's worker whatever the roots are.
  const workspace = join(defaultWorkspaceRoot(), 'herald-demo');
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(workspace, 'main.js'), BUGGY_MAIN);

  // The demo gets its own task queue and provider, so it never borrows (or lends) a real worker.
  const config: HeraldConfig = {
    ...base,
    workspaceRoots: { ...base.workspaceRoots, roots: [...base.workspaceRoots.roots, workspace] },
    taskQueue: DEMO_TASK_QUEUE,
    // The scripted server is the one endpoint, declared with no key paired: no key of yours is sent to it.
    providerDefaults: {
      provider: 'custom',
      model: DEMO_MODEL,
      openaiBaseUrl: fake.url,
      declared: { baseUrls: [fake.url], keyEnvs: [], pairs: [{ baseUrl: fake.url, keyEnv: NO_KEY }] },
    },
  };
  const say = (l: string) => process.stderr.write(`${pc.dim(l)}\n`);
  say('Herald demo: the model is a scripted stand-in (no API key needed); Temporal, Postgres and the tools are real.');
  const stack = await startDevStack({ config, log: createLogger('warn'), say });
  const client = await HeraldClient.connect({
    address: stack.info.temporalAddress,
    namespace: stack.info.namespace,
    taskQueue: DEMO_TASK_QUEUE,
    databaseUrl: stack.info.databaseUrl,
    uiUrl: stack.info.uiUrl,
  });
  const conv = client.conversation(`demo-${newSessionId()}`);
  const renderer = new EventRenderer({ reasoning: true, spinner: false });
  const watch = await conv.watch((e) => renderer.render(e));
  try {
    for (const text of [
      'Fix the bug in main.js',
      'Thanks! What exactly did you run?',
      'Have a sub-agent double-check it.',
    ]) {
      process.stdout.write(`\n${pc.bold('you ›')} ${text}\n`);
      const r = await conv.send(text, { start: { cwd: workspace, source: 'demo' } });
      await new Promise((resolve) => setTimeout(resolve, 300)); // let the last events render
      if (r.failed) throw new Error(`the demo turn failed: ${r.error ?? 'unknown error'}`);
    }
    // With --once the stack stops right after: a link to it would lead nowhere.
    const link =
      stack.info.uiUrl && !o.once
        ? `${stack.info.uiUrl}/namespaces/${stack.info.namespace}/workflows/${conv.workflowId}`
        : undefined;
    process.stdout.write(`\n${pc.green('Demo complete.')} Session ${conv.sessionId}, workflow ${conv.workflowId}.\n`);
    if (link) process.stdout.write(`Open it in the Temporal Web UI: ${pc.underline(link)}\n`);
    process.stdout.write(`Workspace: ${workspace}\n`);
  } finally {
    await watch.stop();
  }
  if (!o.once) {
    process.stdout.write(pc.dim('The stack stays up so you can explore the run. Ctrl-C stops it.\n'));
    await new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    });
  }
  // The demo's queue has no worker once it exits: a conversation left open there would wait for
  // one forever (`herald send` to it would hang). It ends, readable in `herald sessions` as ended.
  await conv.end('the demo finished').catch(() => {});
  await client.close();
  await stack.stop();
  await fake.stop();
}

const invokedDirectly = process.argv[1]?.endsWith('demo.ts');
if (invokedDirectly) {
  runDemo({ once: process.argv.includes('--once') || process.env.HERALD_DEMO_ONCE === '1' }).then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`${pc.red('herald demo:')} ${(err as Error).message}\n`);
      process.exit(1);
    },
  );
}
