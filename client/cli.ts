/**
 * The `herald` command line (docs/cli.md). Errors are one clear line on stderr; `--json` prints
 * machine-readable results on stdout. Exit codes: 0 ok, 1 error, 2 usage, 3 the turn failed,
 * 4 the turn was interrupted.
 *
 * Start-up time is the CLI's first impression (`npm run bench` measures it): only what the command
 * definitions need is imported here; each command imports its heavy modules (the Temporal client,
 * Postgres, the worker, the tools) in its action, so `herald --help` loads commander and little else.
 */
import { Argument, Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { tracingWanted } from '../runtime/tracing-config.js';
import pc from 'picocolors';
import { sessionIdFromWorkflowId, workflowIdFor } from '../common/constants.js';
import type { TurnResult } from '../common/contract.js';
import { API_MODES, PROVIDER_NAMES } from '../common/providers.js';
import type { ApprovalDecision } from '../common/contract.js';
import { APPROVAL_DECISIONS, BUSY_POLICIES } from '../common/contract.js';
import type { HeraldConfig } from '../runtime/config.js';
import { ConfigError } from '../runtime/config.js';
import { cliConfig, configFor } from './cli-config.js';
import type { Db } from '../activities/store/db.js';
import { describeMcpServers, mcpServerSelected } from '../common/mcp-state.js';
import type { MemoryEntry, MemoryStore } from '../activities/store/memory.js';
import {
  MEMORY_LIMITS,
  MEMORY_STORES,
  addMemory,
  clearMemory,
  listMemory,
  memoryChars,
  removeMemory,
} from '../activities/store/memory.js';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { HeraldClient, StartOptions } from './client.js';
import { onStopRequest } from '../runtime/stop-signals.js';
import { needsYouLine, renderSessionsTable } from './sessions-table.js';

const EXIT = { ok: 0, error: 1, usage: 2, failed: 3, interrupted: 4 } as const;

/** Strict for the commands that run on the config file, lenient (a warning) for the others: client/cli-config.ts. */
function config(): HeraldConfig {
  return cliConfig();
}

async function connect(): Promise<HeraldClient> {
  const c = config();
  const [{ HeraldClient }, { clientSettings }, { installRedactor, workerSecrets }] = await Promise.all([
    import('./client.js'),
    import('./connection.js'),
    import('../runtime/secrets.js'),
  ]);
  // What the user types is redacted with the same rules as the worker's (client/client.ts).
  installRedactor(workerSecrets(process.env, c.file));
  return await HeraldClient.connect(clientSettings(c));
}

/** The session commands' lookups (client/session-ref.ts), loaded with the client. */
async function runningConversation(client: HeraldClient, ref: string) {
  return await (await import('./session-ref.js')).runningConversation(client, ref);
}

/** Connect, run `fn`, and always close the connection (so the process can exit). */
async function withClient<T>(fn: (client: HeraldClient) => Promise<T>): Promise<T> {
  const client = await connect();
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

function print(json: boolean, value: unknown, text: string): void {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${text}\n`);
}

function exitCodeOf(r: TurnResult): number {
  return r.interrupted ? EXIT.interrupted : r.failed ? EXIT.failed : EXIT.ok;
}

function describeResult(r: TurnResult): string {
  const lines: string[] = [];
  if (r.final_response) lines.push(r.final_response);
  if (r.interrupted) lines.push(pc.yellow(`(interrupted: ${r.turn_exit_reason})`));
  if (r.failed) lines.push(pc.red(`error: ${r.error ?? r.turn_exit_reason}`));
  return lines.join('\n');
}

/** Run until SIGINT/SIGTERM (or, under npm, npm's shell gone), then stop cleanly. */
function untilSignal(stop: () => Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    const dispose = onStopRequest((why) => {
      process.stderr.write(pc.dim(`\n${why}: stopping…\n`));
      void stop().finally(() => (dispose(), resolve()));
    });
  });
}

function startOptions(o: Record<string, unknown>): StartOptions {
  const s: StartOptions = {};
  if (typeof o.model === 'string') s.model = o.model;
  if (typeof o.provider === 'string') s.provider = o.provider as StartOptions['provider'];
  if (typeof o.apiMode === 'string') s.apiMode = o.apiMode as StartOptions['apiMode'];
  if (typeof o.baseUrl === 'string') s.baseUrl = o.baseUrl;
  if (typeof o.system === 'string') s.systemMessage = o.system;
  if (typeof o.cwd === 'string') s.cwd = o.cwd;
  if (typeof o.maxIterations === 'string') s.maxIterations = Number(o.maxIterations);
  if (typeof o.busyPolicy === 'string') s.busyPolicy = o.busyPolicy as StartOptions['busyPolicy'];
  return s;
}

function withModelOptions(cmd: Command): Command {
  return cmd
    .option('--model <name>', 'model name')
    .addOption(new Option('--provider <name>', 'provider').choices([...PROVIDER_NAMES]))
    .addOption(new Option('--api-mode <mode>', 'API mode').choices([...API_MODES]))
    .option('--base-url <url>', 'OpenAI-compatible base URL (provider custom)')
    .option('--system <text>', 'extra system message')
    .option('--cwd <dir>', 'workspace directory (on the worker, inside its workspace roots)')
    .option('--max-iterations <n>', 'model calls per turn')
    .addOption(
      new Option('--busy-policy <policy>', 'what a message does while a turn runs').choices([...BUSY_POLICIES]),
    );
}

/** `--metrics-port`: a TCP port number, checked before anything starts. */
function portOption(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new InvalidArgumentError('a port number (1-65535)');
  return n;
}

/** The flag wins over HERALD_METRICS_PORT; the listen address stays HERALD_METRICS_HOST's. */
function withMetricsPort(cfg: HeraldConfig, port: number | undefined): HeraldConfig {
  if (port === undefined) return cfg;
  return { ...cfg, metrics: { port, host: cfg.metrics?.host ?? process.env.HERALD_METRICS_HOST ?? '127.0.0.1' } };
}

export function buildProgram(): Command {
  const program = new Command('herald')
    .description('Durable agent conversations on Temporal')
    .showHelpAfterError()
    .exitOverride()
    .hook('preAction', (_program, command) => configFor(command.name()));

  program
    .command('dev')
    .description('start the embedded stack (Temporal dev server, Postgres, a worker) in the foreground')
    .option('--no-ui', 'run the Temporal dev server without its Web UI')
    .option('--no-worker', 'do not start a worker in this process')
    .option(
      '--metrics-port <port>',
      "serve the worker's Prometheus metrics on this port (HERALD_METRICS_PORT)",
      portOption,
    )
    .action(async (o: { ui: boolean; worker: boolean; metricsPort?: number }) => {
      const { runDev } = await import('./dev-command.js');
      process.exitCode = await runDev(withMetricsPort(config(), o.metricsPort), o);
    });

  program
    .command('worker')
    .description('run a worker (TEMPORAL_ADDRESS and DATABASE_URL, or a running `herald dev`)')
    .option('--tools-only', 'serve only tool activities, on HERALD_TASK_QUEUE (a workspace host for `toolTaskQueue`)')
    .option(
      '--metrics-port <port>',
      "serve Prometheus metrics (Herald's and the Temporal SDK's) on this port",
      portOption,
    )
    .action(async (o: { toolsOnly?: boolean; metricsPort?: number }) => {
      const [{ readRuntimeInfo }, { startWorker }, { createLogger }] = await Promise.all([
        import('./connection.js'),
        import('../workers/worker.js'),
        import('../runtime/logger.js'),
      ]);
      const cfg = withMetricsPort(config(), o.metricsPort);
      const rt = readRuntimeInfo(cfg.home);
      const resolved: HeraldConfig = {
        ...cfg,
        temporalAddress: cfg.temporalAddress ?? rt?.temporalAddress,
        databaseUrl: cfg.databaseUrl ?? rt?.databaseUrl,
        namespace: cfg.temporalAddress ? cfg.namespace : (rt?.namespace ?? cfg.namespace),
        // `herald dev`'s server takes no credentials; the environment's are for TEMPORAL_ADDRESS.
        temporalSecurity: cfg.temporalAddress ? cfg.temporalSecurity : {},
      };
      const running = await startWorker({
        config: resolved,
        log: createLogger(cfg.logLevel),
        activitiesOnly: Boolean(o.toolsOnly),
      });
      process.stderr.write(`worker polling task queue ${resolved.taskQueue} on ${resolved.temporalAddress}\n`);
      if (running.metricsUrl) process.stderr.write(`metrics at ${running.metricsUrl}\n`);
      await Promise.race([untilSignal(() => running.shutdown()), running.done]);
    });

  withModelOptions(
    program
      .command('start')
      .description('start a conversation (optionally with a first message)')
      .argument('[message]', 'first user message')
      .option('--session <id>', 'session id (default: a new one)')
      .option('--wait', 'wait for the first turn and print its result')
      .option('--json', 'print JSON'),
  ).action(async (message: string | undefined, o: Record<string, unknown>) => {
    await withClient(async (client) => {
      const start = startOptions(o);
      if (typeof o.session === 'string') start.sessionId = o.session;
      if (message && o.wait) {
        const conv = client.conversation(start.sessionId ?? (await import('./client.js')).newSessionId());
        const r = await conv.send(message, { start: { ...start, source: 'cli' } });
        print(
          Boolean(o.json),
          { sessionId: conv.sessionId, workflowId: conv.workflowId, result: r },
          `session ${conv.sessionId}\n${describeResult(r)}`,
        );
        process.exitCode = exitCodeOf(r);
        return;
      }
      const conv = await client.start({ ...start, ...(message ? { message } : {}), source: 'cli' });
      // A run the worker refuses at its start (no such cwd there, …) fails here, naming the cause.
      const phase = await conv.whenStarted();
      print(
        Boolean(o.json),
        { sessionId: conv.sessionId, workflowId: conv.workflowId, started: phase.state },
        `started session ${conv.sessionId} (workflow ${conv.workflowId})`,
      );
      if (phase.state === 'pending')
        process.stderr.write(
          pc.yellow(
            `no worker has taken it up yet: is \`herald dev\` or \`herald worker\` running for task queue ${client.settings.taskQueue}?\n`,
          ),
        );
    });
  });

  program
    .command('send')
    .description('send a message to a conversation and wait for the turn result')
    .argument('<session>', 'session id')
    .argument('<text>', 'message')
    .option('--id <id>', 'message id (makes retries idempotent)')
    .option('--no-wait', 'only queue the message (signal userMessage)')
    .option('--json', 'print JSON')
    .action(async (session: string, text: string, o: { id?: string; wait: boolean; json?: boolean }) => {
      await withClient(async (client) => {
        const conv = await runningConversation(client, session);
        if (!o.wait) {
          await conv.post(text, o.id);
          print(Boolean(o.json), { queued: true }, 'queued');
          return;
        }
        const r = await conv.send(text, o.id ? { id: o.id } : {});
        print(Boolean(o.json), r, describeResult(r));
        process.exitCode = exitCodeOf(r);
      });
    });

  for (const [name, description] of [
    ['stop', 'interrupt the running turn (/stop)'],
    ['end', 'end the conversation (the workflow completes)'],
  ] as const) {
    program
      .command(name)
      .description(description)
      .argument('<session>', 'session id')
      .argument('[reason]', 'reason')
      .action(async (session: string, reason?: string) => {
        await withClient(async (client) => {
          const conv = await runningConversation(client, session);
          await (name === 'stop' ? conv.stop(reason) : conv.end(reason));
          process.stderr.write(`${name} sent to ${conv.workflowId}\n`);
        });
      });
  }

  program
    .command('approve')
    .description('decide a pending dangerous-command approval')
    .argument('<session>', 'session id')
    .argument('<request>', 'approval request id (see `herald state`)')
    .addArgument(new Argument('<decision>', 'decision').choices([...APPROVAL_DECISIONS]))
    .option('--rule', 'session/always: cover every command of the same rules, not only this command')
    .option('--reason <text>', 'deny: why, for the model (it reads this in the tool result)')
    .action(
      async (session: string, request: string, decision: ApprovalDecision, o: { rule?: boolean; reason?: string }) => {
        if (o.reason && decision !== 'deny')
          throw new Error('--reason goes with deny (the model reads why it may not run the command)');
        await withClient(async (client) => {
          await (
            await runningConversation(client, session)
          ).approve(request, decision, o.rule ? 'rule' : undefined, o.reason);
          const covers =
            decision === 'session' || decision === 'always'
              ? o.rule
                ? ' (every command of its rules)'
                : ' (this command)'
              : '';
          process.stderr.write(`${decision}${covers}: ${request}\n`);
        });
      },
    );

  program
    .command('answer')
    .description("answer the agent's pending clarify question")
    .argument('<session>', 'session id')
    .argument('<text>', 'the answer')
    .action(async (session: string, text: string) => {
      await withClient(async (client) => {
        const { requestId } = await (await runningConversation(client, session)).answer(text);
        process.stderr.write(`answered ${requestId}\n`);
      });
    });

  program
    .command('compress')
    .description('compress the conversation context now (between turns)')
    .argument('<session>', 'session id')
    .argument('[focus]', 'what the summary should keep in detail')
    .option('--json', 'print JSON')
    .action(async (session: string, focus: string | undefined, o: { json?: boolean }) => {
      await withClient(async (client) => {
        const r = await (await runningConversation(client, session)).compress(focus);
        print(Boolean(o.json), r, r.message);
      });
    });

  program
    .command('model')
    .description("switch a conversation's model in place (same session; from the next turn if one runs)")
    .argument('<session>', 'session id')
    .argument('<model>', 'model name')
    .addOption(new Option('--provider <name>', 'provider (default: the current one)').choices([...PROVIDER_NAMES]))
    .addOption(new Option('--api-mode <mode>', 'API mode').choices([...API_MODES]))
    .option('--json', 'print JSON')
    .action(async (session: string, model: string, o: { provider?: string; apiMode?: string; json?: boolean }) => {
      await withClient(async (client) => {
        const r = await client.conversation(session).setModel({
          model,
          ...(o.provider ? { provider: o.provider as (typeof PROVIDER_NAMES)[number] } : {}),
          ...(o.apiMode ? { apiMode: o.apiMode as (typeof API_MODES)[number] } : {}),
        });
        const when = r.applies === 'now' ? '' : ' (from the next turn; the running turn keeps its model)';
        print(
          Boolean(o.json),
          r,
          `model: ${r.model} via ${r.provider}${when} (was ${r.previous.model} via ${r.previous.provider})`,
        );
      });
    });

  program
    .command('steer')
    .description('give the running turn extra guidance at its next model call')
    .argument('<session>', 'session id')
    .argument('<text>', 'guidance')
    .action(async (session: string, text: string) => {
      await withClient(async (client) => {
        await (await runningConversation(client, session)).steer(text);
      });
    });

  program
    .command('state')
    .description("show a conversation's state")
    .argument('<session>', 'session id')
    .option('--json', 'print JSON')
    .action(async (session: string, o: { json?: boolean }) => {
      await withClient(async (client) => {
        const { findSession } = await import('./session-ref.js');
        const s = await (await findSession(client, session)).conversation.state();
        const text = [
          // The conversation id is what every command takes; after a compression the context lives in `<id>.<n>`.
          `session ${s.conversation_id}${s.session_id !== s.conversation_id ? ` (context ${s.session_id})` : ''} · ${s.status} · turn ${s.turn} · iteration ${s.budget.used}/${s.budget.max}`,
          `model ${s.model} via ${s.provider} (${s.api_mode}) · busy policy ${s.busy_policy}`,
          `usage ${s.usage.total_tokens} tokens · $${s.usage.cost_usd.toFixed(4)}`,
          ...(s.queued_messages.length ? [`queued: ${s.queued_messages.map((q) => q.preview).join(' | ')}`] : []),
          ...s.pending_approvals.map((a) => pc.yellow(`approval ${a.request_id} (${a.reason}): ${a.command}`)),
          ...(s.clarify ? [pc.cyan(`question ${s.clarify.request_id}: ${s.clarify.question}`)] : []),
          ...(s.mcp ? [`MCP: ${describeMcpServers(s.mcp.servers).join(' · ') || 'no servers'}`] : []),
          ...(s.left_out ?? []).map((l) => pc.yellow(`left out: ${l}`)),
          ...(s.last_error ? [pc.red(`last error: ${s.last_error}`)] : []),
          ...(s.last_result?.final_response ? [`last reply: ${s.last_result.final_response.slice(0, 500)}`] : []),
        ].join('\n');
        print(Boolean(o.json), s, text);
      });
    });

  withModelOptions(
    program
      .command('chat')
      .description('interactive chat (streamed replies; Ctrl-C or /stop interrupts)')
      .option('--resume <id>', 'continue an existing session (its id or title)')
      .option('--reopen', 'with --resume: go on with a session that has ended')
      .option('--no-reasoning', "hide the model's reasoning (shown dimmed by default)"),
  ).action(async (o: Record<string, unknown>) => {
    const { runChat } = await import('./chat.js');
    await withClient(async (client) => {
      await runChat(client, {
        sessionId: typeof o.resume === 'string' ? o.resume : undefined,
        reopen: Boolean(o.reopen),
        start: startOptions(o),
        showReasoning: Boolean(o.reasoning),
      });
    });
  });

  program
    .command('watch')
    .description("follow a conversation's events live")
    .argument('<session>', 'session id')
    .option(
      '--from <seq>',
      'replay the events after this sequence number (0: the whole history; default: the current turn)',
    )
    .option('--json', 'print events as JSON lines')
    .action(async (session: string, o: { from?: string; json?: boolean }) => {
      const from = o.from === undefined ? undefined : Number(o.from);
      if (from !== undefined && !(Number.isInteger(from) && from >= 0))
        throw new Error(`--from takes an event sequence number (0 or more), not "${o.from}"`);
      const { runWatch } = await import('./watch.js');
      await withClient((client) => runWatch(client, session, { from, json: Boolean(o.json) }));
    });

  program
    .command('doctor')
    .description('check Temporal, Postgres, the providers, the tool sandbox and disk space on this machine')
    .option('--offline', 'do not call the providers (only check that their keys are set)')
    .option('--json', 'print JSON')
    .option('--fix', 'create what is missing and can be made here (the herald-sandbox account, as root)')
    .action(async (o: { offline?: boolean; json?: boolean; fix?: boolean }) => {
      const { renderChecks, runDoctor } = await import('./doctor.js');
      const checks = await runDoctor(config(), { offline: Boolean(o.offline), fix: Boolean(o.fix) });
      print(Boolean(o.json), checks, renderChecks(checks));
      if (checks.some((c) => c.status === 'fail')) process.exitCode = EXIT.error;
    });

  program
    .command('check-command')
    .description('classify a shell command as the approval gate would: safe, dangerous or hardline, and why')
    .argument('[command...]', "the command (after --, so its options are not read as herald's); none: read stdin")
    .option('--json', 'print JSON')
    .option('--jsonl', 'read one JSON string per stdin line, write one JSON object per line')
    .option('--list-rules', "print the gate's rule table")
    .option('--explain', 'show which rule fired on which words')
    .action(async (words: string[], o: { json?: boolean; jsonl?: boolean; listRules?: boolean; explain?: boolean }) => {
      const { checkCommandReport, jsonLines, readStdin, renderCommandReport } = await import('./safety-commands.js');
      if (o.listRules || o.explain) return await (await import('./rule-table-command.js')).ruleTableAction(words, o, print);
      if (o.jsonl) return await jsonLines(checkCommandReport);
      const command = words.length ? words.join(' ') : (await readStdin()).replace(/\n$/, '');
      const report = await checkCommandReport(command);
      print(Boolean(o.json), report, renderCommandReport(command, report));
    });

  program
    .command('scan-text')
    .description('scan text for prompt injection as Herald does for context files, memory and tool results')
    .argument('[text...]', 'the text; none: read stdin')
    .option('--json', 'print JSON')
    .option('--jsonl', 'read one JSON string per stdin line, write one JSON object per line')
    .action(async (words: string[], o: { json?: boolean; jsonl?: boolean }) => {
      const { jsonLines, readStdin, renderScanReport, scanTextReport } = await import('./safety-commands.js');
      if (o.jsonl) return await jsonLines(scanTextReport);
      const report = scanTextReport(words.length ? words.join(' ') : await readStdin());
      print(Boolean(o.json), report, renderScanReport(report));
    });

  program
    .command('tools')
    .description('list the tools a worker with this configuration offers, and why one is not available')
    .option('--toolsets <list>', "comma-separated toolsets to check (default: the config's tools.toolsets, else all)")
    .option('--json', 'print JSON')
    .option('--no-mcp', 'leave out MCP servers (listing them starts them)')
    .action(async (o: { toolsets?: string; json?: boolean; mcp: boolean }) => {
      const [{ builtinTools }, { skillSettings }, { probeMcpServers, renderMcpProbes }] = await Promise.all([
        import('../activities/tools/builtin.js'),
        import('../activities/skills/discover.js'),
        import('./mcp-command.js'),
      ]);
      const cfg = config();
      const registry = builtinTools(cfg.file, skillSettings(cfg));
      const selection = o.toolsets ? o.toolsets.split(',').map((t) => t.trim()) : cfg.file.tools.toolsets;
      const rows = registry.status(selection);
      const width = Math.max(...rows.map((r) => r.name.length));
      const setWidth = Math.max(...rows.map((r) => r.toolset.length));
      const text = rows
        .map(
          (r) =>
            `${r.enabled ? pc.green('✓') : pc.red('✗')} ${r.name.padEnd(width)}  ${pc.dim(r.toolset.padEnd(setWidth))} ${r.enabled ? r.description.split('. ')[0] : pc.yellow(r.reason ?? '')}`,
        )
        .join('\n');
      const source = o.toolsets
        ? 'from --toolsets'
        : selection
          ? `from tools.toolsets in ${cfg.configPath ?? 'the config'}`
          : 'no tools.toolsets in the config';
      const servers = o.mcp
        ? Object.keys(cfg.file.mcp.servers).filter((n) =>
            mcpServerSelected(selection, n, cfg.file.mcp.servers[n]!.toolsets),
          )
        : [];
      const probes = servers.length ? (await probeMcpServers(cfg)).filter((p) => servers.includes(p.name)) : [];
      const mcpText = probes.length ? `\n\nMCP servers:\n${renderMcpProbes(probes, true)}` : '';
      print(
        Boolean(o.json),
        probes.length ? { tools: rows, mcp: probes } : rows,
        `toolsets: ${selection?.join(', ') ?? 'all'} (${source})\n${text}${mcpText}`,
      );
    });

  const mcp = program.command('mcp').description('MCP servers of this configuration: status and tools');
  mcp
    .command('list', { isDefault: true })
    .description('connect to every configured MCP server and show its status and tools')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) => {
      const { probeMcpServers, renderMcpProbes } = await import('./mcp-command.js');
      const probes = await probeMcpServers(config());
      print(Boolean(o.json), probes, renderMcpProbes(probes, true));
    });
  mcp
    .command('test')
    .description('start one MCP server, list its tools, and say why when it does not work')
    .argument('<server>', 'the name under mcp.servers')
    .option('--json', 'print JSON')
    .action(async (server: string, o: { json?: boolean }) => {
      const cfg = config();
      if (!cfg.file.mcp.servers[server])
        throw new ConfigError(
          `no MCP server "${server}" in the config (configured: ${Object.keys(cfg.file.mcp.servers).join(', ') || 'none'})`,
          'mcp.servers',
        );
      const { probeMcpServers, renderMcpProbes } = await import('./mcp-command.js');
      const probes = await probeMcpServers(cfg, server);
      print(Boolean(o.json), probes[0], renderMcpProbes(probes, true));
      if (probes[0]?.status !== 'ready') process.exitCode = 1;
    });

  const skills = program
    .command('skills')
    .description('list the skills a conversation in a workspace gets, and show one (SKILL.md folders)');
  const skillsWhere = async (o: { cwd?: string }) => {
    const { skillSettings } = await import('../activities/skills/discover.js');
    const cfg = config();
    const cwd = resolve(o.cwd ?? process.cwd());
    if (!existsSync(cwd)) throw new Error(`no such folder: ${cwd}`);
    return { settings: skillSettings(cfg), cwd };
  };
  skills
    .command('list', { isDefault: true })
    .description('every skill found for the workspace, and the ones refused (blocked, broken, shadowed) with why')
    .option('--cwd <dir>', 'the workspace (default: the current folder)')
    .option('--json', 'print JSON')
    .action(async (o: { cwd?: string; json?: boolean }) => {
      const { settings, cwd } = await skillsWhere(o);
      const [{ discoverSkills }, { renderSkillsList }] = await Promise.all([
        import('../activities/skills/discover.js'),
        import('./skills-command.js'),
      ]);
      const catalog = await discoverSkills(settings, cwd);
      print(Boolean(o.json), catalog, renderSkillsList(catalog, settings, cwd));
    });
  skills
    .command('show')
    .description("print a skill's instructions and its files, or one of its files, as the agent reads them")
    .argument('<name>', 'the skill')
    .argument('[path]', "one of its files, relative to the skill's folder")
    .option('--cwd <dir>', 'the workspace (default: the current folder)')
    .option('--json', 'print JSON')
    .action(async (name: string, path: string | undefined, o: { cwd?: string; json?: boolean }) => {
      const { settings, cwd } = await skillsWhere(o);
      const { renderSkillView, viewSkill } = await import('../activities/skills/view.js');
      const view = await viewSkill(settings, cwd, name, path);
      if (!view.ok) throw new Error(view.error);
      print(Boolean(o.json), view, renderSkillView(view));
    });

  const memory = program
    .command('memory')
    .description('show, edit and export the MEMORY and USER stores (in Postgres)');
  const withDb = async <T>(fn: (db: Db) => Promise<T>): Promise<T> => {
    const [{ clientSettings }, { createDb }, { migrate }] = await Promise.all([
      import('./connection.js'),
      import('../activities/store/db.js'),
      import('../activities/store/migrate.js'),
    ]);
    const url = clientSettings(config()).databaseUrl;
    if (!url) throw new ConfigError('config error: DATABASE_URL is not set (or run `herald dev`)', 'DATABASE_URL');
    const db = createDb(url, 1);
    try {
      await migrate(db);
      return await fn(db);
    } finally {
      await db.end();
    }
  };
  const storeArg = () => new Argument('<store>', 'which store').choices([...MEMORY_STORES]);
  memory
    .command('show', { isDefault: true })
    .description('print both stores')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) => {
      const data = await withDb(async (db) => ({
        memory: await listMemory(db, 'memory'),
        user: await listMemory(db, 'user'),
      }));
      const { screenFinding } = await import('../common/prompt-screen.js');
      print(
        Boolean(o.json),
        data,
        renderMemory('MEMORY', data.memory, MEMORY_LIMITS.memory, screenFinding) +
          '\n\n' +
          renderMemory('USER', data.user, MEMORY_LIMITS.user, screenFinding),
      );
    });
  memory
    .command('add')
    .description('add an entry')
    .addArgument(storeArg())
    .argument('<text>', 'the entry')
    .action(async (store: MemoryStore, text: string) => {
      await withDb(async (db) => {
        const entries = await listMemory(db, store);
        if (memoryChars(entries) + text.length > MEMORY_LIMITS[store])
          throw new Error(`the ${store} store is full (${memoryChars(entries)} of ${MEMORY_LIMITS[store]} characters)`);
        await addMemory(db, store, text);
        process.stderr.write(
          `added to ${store} (${memoryChars(entries) + text.length} of ${MEMORY_LIMITS[store]} characters)\n`,
        );
        // Your own entry is kept, but new sessions' prompts will show a placeholder instead: say so now.
        const { screenFinding } = await import('../common/prompt-screen.js');
        const rule = screenFinding(text, 'strict');
        if (rule)
          process.stderr.write(
            pc.yellow(
              `warning: system prompts will leave this entry out: it looked like a prompt injection: ${rule}\n`,
            ),
          );
      });
    });
  memory
    .command('remove')
    .description('remove the entries containing a text')
    .addArgument(storeArg())
    .argument('<match>', 'a substring of the entries to remove')
    .action(async (store: MemoryStore, match: string) => {
      const n = await withDb((db) => removeMemory(db, store, match));
      process.stderr.write(`removed ${n} entr${n === 1 ? 'y' : 'ies'}\n`);
    });
  memory
    .command('edit')
    .description('edit a store in $EDITOR (one entry per line)')
    .addArgument(storeArg())
    .action(async (store: MemoryStore) => {
      await withDb(async (db) => {
        const file = join(mkdtempSync(join(tmpdir(), 'herald-memory-')), `${store.toUpperCase()}.md`);
        writeFileSync(file, (await listMemory(db, store)).map((e) => e.content.replace(/\n/g, ' ')).join('\n') + '\n');
        const editor = process.env.VISUAL ?? process.env.EDITOR ?? 'vi';
        const r = spawnSync(editor, [file], { stdio: 'inherit', shell: true });
        if (r.status !== 0) throw new Error(`${editor} exited with ${r.status}; nothing changed`);
        const lines = readFileSync(file, 'utf8')
          .split('\n')
          .map((l) => l.trim())
          .filter(Boolean);
        if (lines.join('').length > MEMORY_LIMITS[store])
          throw new Error(`over the ${MEMORY_LIMITS[store]}-character limit; nothing changed`);
        await clearMemory(db, store);
        for (const l of lines) await addMemory(db, store, l);
        process.stderr.write(`${store}: ${lines.length} entries\n`);
      });
    });
  memory
    .command('export')
    .description('write MEMORY.md and USER.md')
    .argument('[dir]', 'target directory, created if missing (default: <Herald home>/memory-export)')
    .action(async (target: string | undefined) => {
      const dir = resolve(target ?? join(config().home, 'memory-export'));
      await withDb(async (db) => {
        mkdirSync(dir, { recursive: true });
        for (const store of MEMORY_STORES) {
          const path = join(dir, `${store.toUpperCase()}.md`);
          writeFileSync(
            path,
            `# ${store.toUpperCase()}\n\n${(await listMemory(db, store)).map((e) => `- ${e.content}`).join('\n')}\n`,
          );
          process.stderr.write(`wrote ${path}\n`);
        }
      });
    });

  program
    .command('sessions')
    .description('list recent sessions')
    .option('--limit <n>', 'how many', '20')
    .option('--json', 'print JSON')
    .action(async (o: { limit: string; json?: boolean }) => {
      const [{ clientSettings }, { createDb }, { listConversations }, { workflowStatuses }] = await Promise.all([
        import('./connection.js'),
        import('../activities/store/db.js'),
        import('../activities/store/sessions.js'),
        import('./session-status.js'),
      ]);
      const url = clientSettings(config()).databaseUrl;
      if (!url) throw new ConfigError('config error: DATABASE_URL is not set (or run `herald dev`)', 'DATABASE_URL');
      const db = createDb(url, 1);
      try {
        const rows = await listConversations(db, Number(o.limit) || 20);
        // Without Temporal the list still shows; only the statuses are unknown.
        const ids = rows.map((r) => r.workflow_id ?? workflowIdFor(r.id));
        const statuses = rows.length
          ? await withClient((client) => workflowStatuses(client, ids)).catch(async (err: unknown) => {
              process.stderr.write(`${pc.yellow('herald:')} statuses unknown: ${await describeError(err)}\n`);
              return new Map<string, string>();
            })
          : new Map<string, string>();
        const listed = rows.map((r) => ({
          ...r,
          status: statuses.get(r.workflow_id ?? workflowIdFor(r.id)) ?? 'unknown',
        }));
        print(
          Boolean(o.json),
          listed,
          renderSessionsTable(
            listed.map((r) => ({
              session: r.id,
              status: r.status === 'gone' && r.ended_at ? 'ended' : r.status,
              startedAt: r.started_at,
              messages: r.messages,
              model: r.model,
              title: r.title,
              compressions: r.compressions,
              parent: r.parent_id,
            })),
          ),
        );
        const settings = clientSettings(config());
        const needsYou = o.json ? undefined : needsYouLine([...statuses.values()], settings.uiUrl, settings.namespace);
        if (needsYou) process.stderr.write(`${pc.dim(needsYou)}\n`);
      } finally {
        await db.end();
      }
    });

  program
    .command('usage')
    .description(
      "every HTTP attempt of a conversation's model calls (retries, fallbacks, failures), with tokens and cost",
    )
    .argument('<session>', 'session id')
    .option('--json', 'print JSON')
    .action(async (session: string, o: { json?: boolean }) => {
      const { renderUsage, usageReport } = await import('./usage.js');
      const report = await withDb((db) => usageReport(db, session));
      print(Boolean(o.json), report, renderUsage(report));
    });

  program
    .command('codec-server')
    .description('serve the payload codec over HTTP for the Temporal Web UI and `temporal --codec-endpoint`')
    .option('--host <host>', 'address to listen on (beyond loopback only with HERALD_CODEC_TOKEN set)', '127.0.0.1')
    .option('--port <port>', 'port (default HERALD_CODEC_PORT, 8888)')
    .option('--ui-origin <origin...>', 'Web UI origins allowed by CORS (default: the dev Web UI on HERALD_UI_PORT)')
    .option('--max-body-bytes <n>', 'largest request accepted', String(8 * 1024 * 1024))
    .action(async (o: { host: string; port?: string; uiOrigin?: string[]; maxBodyBytes: string }) => {
      const { runCodecServer } = await import('./codec-command.js');
      const server = await runCodecServer(config(), o);
      await untilSignal(() => server.close());
    });

  program
    .command('codec-key')
    .description('print a new payload codec key entry (id:base64key) for HERALD_CODEC_KEY or a key file')
    .argument('[id]', 'the key id (default: key-<date>)')
    .action(async (id: string | undefined) => {
      const { runCodecKey } = await import('./codec-command.js');
      process.stdout.write(`${runCodecKey(id)}\n`);
    });

  program
    .command('demo')
    .description('run a scripted conversation on the embedded stack (no real model needed)')
    .option('--once', 'exit after the demo instead of keeping the stack up')
    .action(async (o: { once?: boolean }) => {
      const { runDemo } = await import('./demo.js');
      await runDemo({ once: Boolean(o.once) });
    });

  return program;
}

function renderMemory(
  label: string,
  entries: MemoryEntry[],
  limit: number,
  screenFinding: (text: string, mode: 'strict') => string | undefined,
): string {
  const head = `${label} (${memoryChars(entries)} of ${limit} characters)`;
  return entries.length
    ? [
        head,
        ...entries.map((e, i) => {
          // Shown as stored; marked when new sessions' prompts leave it out (activities/prompt/system-prompt.ts).
          const rule = screenFinding(e.content, 'strict');
          const mark = rule
            ? pc.yellow(` [left out of system prompts: it looked like a prompt injection: ${rule}]`)
            : '';
          return `${String(i + 1).padStart(2)}. ${e.content}${mark}`;
        }),
      ].join('\n')
    : `${head}: empty`;
}

/** Turn any failure into one clear line. (The Temporal client is loaded here, off the start-up path.) */
export async function describeError(err: unknown): Promise<string> {
  const { WorkflowFailedError, WorkflowNotFoundError, WorkflowUpdateFailedError } = await import('@temporalio/client');
  if (err instanceof WorkflowNotFoundError)
    return `session ${err.workflowId ? sessionIdFromWorkflowId(err.workflowId) : '?'} is not running (it ended, or never started): \`herald sessions\` lists them`;
  if (err instanceof WorkflowUpdateFailedError) return `rejected: ${err.cause?.message ?? err.message}`;
  if (err instanceof WorkflowFailedError) return `conversation failed: ${err.cause?.message ?? err.message}`;
  // A config file error carries the file's lines with a caret under the spot.
  if (err instanceof ConfigError) return err.message;
  if (err instanceof Error) return err.message.split('\n')[0] ?? String(err);
  return String(err);
}

export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  let tracing: { shutdown(): Promise<void> } | undefined;
  try {
    // Traces (off unless OTEL_* asks): the SDK is loaded only then, and flushed before exit.
    if (tracingWanted(process.env)) tracing = (await import('../runtime/tracing.js')).startTracing();
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      process.exitCode = err.exitCode === 0 ? EXIT.ok : EXIT.usage;
      return;
    }
    process.stderr.write(`${pc.red('herald:')} ${await describeError(err)}\n`);
    process.exitCode = EXIT.error;
  } finally {
    await tracing?.shutdown();
  }
}
