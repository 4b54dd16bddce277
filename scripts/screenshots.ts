/**
 * Screenshots of the Temporal Web UI showing real Herald conversations, for the README:
 * docs/images/webui-list.png (the workflow list with Herald's search attributes as columns),
 * docs/images/webui-needs-you.png (the list opened from the "needs you" link `herald dev` and
 * `herald sessions` print), docs/images/webui-columns.png (the Web UI's own column settings, where a
 * person adds HeraldTitle and HeraldStatus by hand) and
 * docs/images/webui-details.png (a conversation waiting for an approval: its summary and current
 * details) and docs/images/webui-history.png (its event history: labelled timers and activities,
 * small activity results).
 *
 *   npx tsx scripts/screenshots.ts [outDir]
 *
 * Standalone, like scripts/record-histories.ts: a Temporal dev server with its Web UI on free
 * ports, the Postgres of DATABASE_URL (else an embedded one), the fake provider, an in-process
 * worker. The browser is the system's Chromium (HERALD_CHROMIUM, else /usr/bin/chromium), driven
 * by puppeteer-core, which downloads nothing. Tools run outside the sandbox unless
 * HERALD_TEST_SANDBOX says otherwise.
 */
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import puppeteer from 'puppeteer-core';
import type { Page } from 'puppeteer-core';
import { SEARCH_ATTRIBUTES } from '../common/constants.js';
import { needsPersonUrl } from '../shared/needs-person.js';
import { PROJECT_ROOT } from '../runtime/paths.js';
import { freePort } from '../runtime/ports.js';
import { ensureTemporalCli } from '../runtime/temporal-cli.js';
import type { TestStack } from '../test/support/stack.js';
import { createTestStack, eventually } from '../test/support/stack.js';
import { startEmbeddedPostgres } from '../workers/embedded-postgres.js';
import { startTemporalDevServer } from '../workers/temporal-dev-server.js';

const outDir = resolve(process.argv[2] ?? join(PROJECT_ROOT, 'docs', 'images'));
process.env.HERALD_LOG_LEVEL ??= 'error';
process.env.HERALD_TEST_SANDBOX ??= 'off';
const log = (line: string) => process.stderr.write(`[screenshots] ${line}\n`);

/** The list's columns (the Web UI keeps them per namespace in localStorage). */
const COLUMNS = [
  { label: 'Status', pinned: true },
  { label: 'Workflow ID', pinned: true },
  { label: SEARCH_ATTRIBUTES.status, pinned: false },
  { label: SEARCH_ATTRIBUTES.primaryModel, pinned: false },
  { label: SEARCH_ATTRIBUTES.model, pinned: false },
  { label: 'Start', pinned: false },
  { label: SEARCH_ATTRIBUTES.title, pinned: false },
];

/** Conversations in the states the list should show: answered, waiting for an approval, failed, a child agent. */
async function drive(stack: TestStack, ws: string): Promise<string> {
  const backup = [{ provider: 'custom' as const, model: 'backup-model', baseUrl: stack.fake.url }];

  stack.fake.script([
    { toolCalls: [{ name: 'terminal', arguments: { command: 'ls' } }] },
    { text: 'The workspace holds build/ and README.md.' },
  ]);
  await stack.herald.conversation('demo-explore').send('What is in this workspace?', { start: { cwd: ws } });

  stack.fake.script([{ status: 401, error: { message: 'Incorrect API key provided' } }], 'fake-model');
  stack.fake.script([{ status: 404, error: { message: 'The model backup-model does not exist' } }], 'backup-model');
  await stack.herald
    .conversation('demo-broken-key')
    .send('Summarise the open issues', { start: { cwd: ws, fallbackProviders: backup } });

  stack.fake.respond((req) => {
    const messages = req.body.messages as Array<{ role: string; content: string | null }>;
    if (messages.some((m) => m.role === 'user' && m.content?.startsWith('YOUR TASK')))
      return { text: 'README.md has 3 sections.' };
    if (messages.at(-1)!.role === 'user')
      return { toolCalls: [{ name: 'delegate_task', arguments: { goal: 'Count the sections of README.md' } }] };
    return { text: 'A child agent counted 3 sections.' };
  });
  await stack.herald.conversation('demo-delegate').send('How is the README organised?', { start: { cwd: ws } });
  stack.fake.respond(undefined);

  // Left waiting: the list finds it with HeraldStatus="awaiting_approval", its page shows why.
  stack.fake.script([
    { toolCalls: [{ name: 'terminal', arguments: { command: 'rm -rf ~/.cache && echo cleaned' } }] },
    { text: 'Cleaned the build cache.' },
  ]);
  const waiting = stack.herald.conversation('demo-cleanup');
  // The update waits for the approval: it must be settled before the client's connection closes,
  // or its next poll throws "Channel has been shut down" (see the end of this script).
  pendingSend = waiting.send('Clean the build cache, then run the tests', { start: { cwd: ws } }).catch(() => {});
  await eventually(async () => (await waiting.state()).pending_approvals[0]);
  // Visibility is eventually consistent: wait until the list query sees every conversation.
  await eventually(async () => {
    let n = 0;
    for await (const _ of stack.temporal.workflow.list({ query: `${SEARCH_ATTRIBUTES.title} IS NOT NULL` })) n += 1;
    const waitingListed = await stack.temporal.workflow.count(`${SEARCH_ATTRIBUTES.status}="awaiting_approval"`);
    return n >= 5 && waitingListed.count === 1;
  }, 30_000);
  return waiting.workflowId;
}

async function waitForText(page: Page, text: string): Promise<void> {
  try {
    // Runs in the page (a string, since this project compiles without the DOM types). Markdown
    // (summary, current details) is rendered in same-origin iframes.
    const t = JSON.stringify(text);
    await page.waitForFunction(
      `document.body.innerText.includes(${t}) || [...document.querySelectorAll('iframe')].some((f) => f.contentDocument?.body?.innerText.includes(${t}))`,
      { timeout: 60_000 },
    );
  } catch (err) {
    // What the page showed instead, to see why.
    const seen = join(tmpdir(), 'herald-screenshot-timeout.png');
    await page.screenshot({ path: seen });
    throw new Error(`the Web UI never showed "${text}" (what it showed: ${seen})`, { cause: err });
  }
}

async function shoot(uiUrl: string, workflowId: string, runId: string): Promise<void> {
  const chromium = process.env.HERALD_CHROMIUM ?? '/usr/bin/chromium';
  if (!existsSync(chromium)) throw new Error(`no Chromium at ${chromium}: install it or set HERALD_CHROMIUM`);
  const browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), '--disable-gpu', '--hide-scrollbars'],
  });
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1920, height: 700, deviceScaleFactor: 1 });
    const columns = JSON.stringify(JSON.stringify({ default: COLUMNS }));
    await page.evaluateOnNewDocument(`localStorage.setItem('namespace-workflow-table-columns', ${columns});`);

    await page.goto(`${uiUrl}/namespaces/default/workflows`, { waitUntil: 'domcontentloaded' });
    await waitForText(page, 'awaiting_approval');
    await waitForText(page, 'Clean the build cache');
    await page.screenshot({ path: join(outDir, 'webui-list.png') });
    log(`wrote ${join(outDir, 'webui-list.png')}`);

    // The link the banner prints: only the conversations that need a person (the waiting one and
    // the one whose turn failed), not the answered one or the child agent.
    await page.goto(needsPersonUrl(uiUrl, 'default'), { waitUntil: 'domcontentloaded' });
    await waitForText(page, 'demo-cleanup');
    await waitForText(page, 'demo-broken-key');
    await page.waitForFunction(`!document.body.innerText.includes('demo-explore')`, { timeout: 30_000 });
    await page.screenshot({ path: join(outDir, 'webui-needs-you.png') });
    log(`wrote ${join(outDir, 'webui-needs-you.png')}`);

    // Where a person adds the columns by hand (what the injected storage above stands for).
    await page.locator('button[data-track-intent="configure-columns"]').click();
    await waitForText(page, 'Custom Search Attributes');
    await waitForText(page, SEARCH_ATTRIBUTES.title);
    await new Promise((r) => setTimeout(r, 1000)); // the drawer slides in
    await page.screenshot({ path: join(outDir, 'webui-columns.png') });
    log(`wrote ${join(outDir, 'webui-columns.png')}`);

    // The conversation's page: its history (labelled timers), then its summary and current details.
    const base = `${uiUrl}/namespaces/default/workflows/${workflowId}/${runId}`;
    await page.setViewport({ width: 1600, height: 1200, deviceScaleFactor: 1 });
    await page.goto(`${base}/history`, { waitUntil: 'domcontentloaded' });
    await waitForText(page, 'approval wait');
    await page.screenshot({ path: join(outDir, 'webui-history.png') });
    log(`wrote ${join(outDir, 'webui-history.png')}`);

    await page.setViewport({ width: 1600, height: 1000, deviceScaleFactor: 1 });
    await page.locator('::-p-text(User Metadata)').click();
    await waitForText(page, 'Approval needed');
    await page.screenshot({ path: join(outDir, 'webui-details.png') });
    log(`wrote ${join(outDir, 'webui-details.png')}`);
  } finally {
    await browser.close();
  }
}

const cleanups: Array<() => Promise<void>> = [];
let pendingSend: Promise<unknown> | undefined;
let exitCode = 0;
try {
  mkdirSync(outDir, { recursive: true });
  const uiPort = await freePort();
  const server = await startTemporalDevServer({
    cliPath: ensureTemporalCli(process.env, log),
    port: await freePort(),
    uiPort,
    namespace: 'default',
  });
  cleanups.push(() => server.stop());
  process.once('exit', () => server.process.kill('SIGKILL'));
  process.env.HERALD_TEST_TEMPORAL_ADDRESS = server.address;
  if (!process.env.HERALD_TEST_ADMIN_DATABASE_URL && !process.env.DATABASE_URL) {
    const pg = await startEmbeddedPostgres(mkdtempSync(join(tmpdir(), 'herald-shots-pg-')), await freePort());
    cleanups.push(() => pg.stop());
    process.env.HERALD_TEST_ADMIN_DATABASE_URL = pg.url;
  }
  const stack = await createTestStack({ configYaml: 'retry: { baseDelaySeconds: 0.2, maxDelaySeconds: 1 }\n' });
  cleanups.push(() => stack.close());
  const ws = join(stack.workspaces, 'ws');
  mkdirSync(join(ws, 'build'), { recursive: true });
  const workflowId = await drive(stack, ws);
  const { runId } = await stack.temporal.workflow.getHandle(workflowId).describe();
  await shoot(server.uiUrl!, workflowId, runId);
  await stack.temporal.workflow.getHandle(workflowId).terminate('screenshots taken');
  await pendingSend;
} catch (err) {
  console.error(err);
  exitCode = 1;
} finally {
  for (const c of cleanups.reverse()) await c().catch((err: unknown) => log(`cleanup failed: ${String(err)}`));
}
process.exit(exitCode);
