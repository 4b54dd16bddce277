/**
 * A Herald worker: polls the task queue, runs conversation workflows and their activities.
 * Applies migrations to the database first, so a fresh database just works.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type { LogLevel, WorkerOptions as WorkerCreateOptions } from '@temporalio/worker';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import type { Tracing } from '../runtime/tracing.js';
import { startTracing } from '../runtime/tracing.js';
import { SEARCH_ATTRIBUTE_NAMES } from '../common/constants.js';
import { dirname, join } from 'node:path';
import { loadEngine } from '../activities/context-engine.js';
import { loadCommandSafety } from '../command-safety/classify.js';
import { createActivities } from '../activities/index.js';
import { HookRunner, loadPlugins } from '../activities/hooks.js';
import type { Db } from '../store/db.js';
import { createDb, redactUrl } from '../store/db.js';
import { RunningCalls, listenForStops } from '../activities/events/stop-notices.js';
import { pruneEvents } from '../store/events.js';
import { pruneCheckpoints } from '../checkpoints/retention.js';
import { migrate } from '../store/migrate.js';
import { skillSettings } from '../skills/discover.js';
import { builtinTools } from '../activities/tools/builtin.js';
import { ToolSandbox } from '../sandbox/sandbox.js';
import type { HeraldConfig } from '../runtime/config.js';
import { ConfigError } from '../runtime/config.js';
import type { Logger } from '../runtime/logger.js';
import { installRedactor, workerSecrets } from '../runtime/secrets.js';
import { McpPool } from '../mcp/pool.js';
/** What Herald calls itself to MCP servers. */
const HERALD_VERSION = '0.1.0';
import { workerDataConverter } from '../runtime/data-converter.js';
import type { TemporalSecurity } from '../runtime/temporal-connection.js';
import { describeSecurity } from '../runtime/temporal-connection.js';
import { freePort } from '../runtime/ports.js';
import { codeModule } from '../runtime/paths.js';
import { createMetrics } from '../activities/metrics.js';
import type { MetricsServer } from './metrics-server.js';
import { startMetricsServer } from './metrics-server.js';
import { workerCreateTuning } from '../shared/worker-tuning.js';
import { defaultWorkspace, workspacePolicy } from '../activities/workspace-policy.js';

export const WORKFLOWS_PATH = codeModule('workflows/index');
/** The workflow-side tracing interceptors, bundled only into a tracing worker's workflows. */
export const TRACING_INTERCEPTORS_PATH = codeModule('workflows/tracing');

export interface WorkerOptions {
  config: HeraldConfig;
  log: Logger;
  env?: NodeJS.ProcessEnv;
  /** Path of a pre-built workflow bundle (HERALD_WORKFLOW_BUNDLE); bundles on start otherwise. */
  workflowBundlePath?: string | undefined;
  /**
   * Serve only activities (no workflows): a tool worker on the host that holds a workspace, polling
   * the queue conversations name in `toolTaskQueue`.
   */
  activitiesOnly?: boolean;
  /** Tracing to use (tests: an in-memory exporter); by default the `OTEL_*` environment decides. */
  tracing?: Tracing;
  /**
   * Run workflows on this thread instead of the SDK's workflow thread (the SDK's `debugMode`): only
   * for measuring (bench/cache-memory.ts reads the heap a cached conversation takes).
   */
  workflowsOnMainThread?: boolean;
}

export interface RunningWorker {
  worker: Worker;
  db: Db;
  /** What the tool sandbox can do on this machine. */
  sandbox: ToolSandbox;
  /** Where `/metrics` is served (Herald's and the Temporal SDK's), when a metrics port was given. */
  metricsUrl: string | undefined;
  /** Resolves when the worker has stopped. */
  done: Promise<void>;
  shutdown(): Promise<void>;
}

let runtimeInstalled = false;
/** The core's Prometheus endpoint, when this process installed the runtime with one. */
let coreMetricsUrl: string | undefined;

/**
 * Route the Temporal core's logs into pino (once per process), and with `metrics`, bind the core's
 * Prometheus endpoint on a loopback port of its own (served through the worker's metrics port).
 */
async function installRuntime(log: Logger, metrics: boolean): Promise<string | undefined> {
  if (runtimeInstalled) {
    if (metrics && !coreMetricsUrl)
      log.warn("the Temporal runtime was installed without metrics: only Herald's own metrics are served");
    return coreMetricsUrl;
  }
  runtimeInstalled = true;
  const corePort = metrics ? await freePort() : undefined;
  const levels: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
    TRACE: 'trace',
    DEBUG: 'debug',
    INFO: 'info',
    WARN: 'warn',
    ERROR: 'error',
  };
  try {
    Runtime.install({
      logger: new DefaultLogger('WARN', (entry) => log[levels[entry.level]]({ ...entry.meta }, entry.message)),
      // The Rust core's own lines (gRPC retries, poll errors) through the same logger: redacted,
      // and in the same format as Herald's (readable in `herald dev`, JSON elsewhere).
      telemetryOptions: {
        logging: { filter: { core: 'WARN', other: 'ERROR' }, forward: {} },
        ...(corePort ? { metrics: { prometheus: { bindAddress: `127.0.0.1:${corePort}` } } } : {}),
      },
    });
    if (corePort) coreMetricsUrl = `http://127.0.0.1:${corePort}/metrics`;
  } catch {
    // Already installed by the embedding program (tests): keep theirs.
    if (metrics) log.warn("the Temporal runtime was installed elsewhere: only Herald's own metrics are served");
  }
  return coreMetricsUrl;
}

/**
 * Traces: the activity interceptors from `@temporalio/interceptors-opentelemetry` (a span per
 * activity, parented by the header the workflow sent), Herald's workflow interceptors
 * (workflows/tracing.ts: one trace per turn), and the sink that hands workflow spans to the
 * process's span processor.
 */
function tracingOptions(tracing: Tracing, workflows: boolean): Pick<WorkerCreateOptions, 'interceptors' | 'sinks'> {
  return {
    interceptors: {
      ...(workflows ? { workflowModules: [TRACING_INTERCEPTORS_PATH] } : {}),
      activity: [
        (ctx) => ({
          inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
          outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
      ],
    },
    ...(workflows ? { sinks: { exporter: makeWorkflowExporter(tracing.spanProcessor, tracing.resource) } } : {}),
  };
}

/** Make sure Herald's search attributes exist; upserting unknown ones would fail workflow tasks. */
async function ensureSearchAttributes(
  address: string,
  security: TemporalSecurity,
  namespace: string,
  log: Logger,
): Promise<boolean> {
  const connection = await Connection.connect({ ...security, address });
  try {
    const existing = await connection.operatorService.listSearchAttributes({ namespace });
    const have = new Set(Object.keys(existing.customAttributes ?? {}));
    const missing = SEARCH_ATTRIBUTE_NAMES.filter((n) => !have.has(n));
    if (missing.length === 0) return true;
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map((n) => [n, 2 /* INDEXED_VALUE_TYPE_KEYWORD */])),
    });
    log.info({ missing }, 'registered search attributes');
    return true;
  } catch (err) {
    log.warn(
      { err: (err as Error).message },
      'could not check or register search attributes; runs will not carry them',
    );
    return false;
  } finally {
    await connection.close();
  }
}

export async function startWorker(o: WorkerOptions): Promise<RunningWorker> {
  const { config, log } = o;
  const env = o.env ?? process.env;
  // A config loaded leniently (for client commands) is never good enough to run a worker on.
  if (config.fileError) throw config.fileError;
  if (!config.temporalAddress)
    throw new ConfigError('config error: TEMPORAL_ADDRESS is not set (or run `herald dev`)', 'TEMPORAL_ADDRESS');
  if (!config.databaseUrl)
    throw new ConfigError('config error: DATABASE_URL is not set (or run `herald dev`)', 'DATABASE_URL');
  // Before anything can log or write: every credential this worker holds is redacted from then on.
  // A Temporal API key read from a profile file is not in the environment: name it too.
  const temporalKey = config.temporalSecurity.apiKey;
  installRedactor([
    ...workerSecrets(env, config.file),
    ...(temporalKey ? [{ name: 'TEMPORAL_API_KEY', value: temporalKey }] : []),
    ...(config.codec?.keys ?? []).map((k) => ({ name: 'HERALD_CODEC_KEY', value: k.key.export().toString('base64') })),
  ]);
  const coreUrl = await installRuntime(log, config.metrics !== undefined);

  const tuning = config.worker;
  const db = createDb(config.databaseUrl, tuning.dbPoolSize, { redact: true });
  try {
    const applied = await migrate(db);
    if (applied.length) log.info({ applied }, 'applied database migrations');
  } catch (err) {
    await db.end().catch(() => {});
    throw new Error(`cannot prepare the database at ${redactUrl(config.databaseUrl)}: ${(err as Error).message}`);
  }

  if (!config.providerDefaults.model) {
    log.warn(
      { provider: config.providerDefaults.provider },
      'no default model configured (HERALD_MODEL): conversations must name a model',
    );
  }
  const security = config.temporalSecurity;
  const searchAttributes = await ensureSearchAttributes(config.temporalAddress, security, config.namespace, log);
  const connection = await NativeConnection.connect({ ...security, address: config.temporalAddress });
  // Plugins and a custom context engine are named relative to the config file.
  const configDir = config.configPath ? dirname(config.configPath) : config.home;
  const engine = await loadEngine(config.file.compression.engine, configDir);
  // The approval gate's rule table proves its own examples here: a broken table stops the worker.
  await loadCommandSafety();
  const hooks = new HookRunner(await loadPlugins(config.file.hooks.plugins, configDir), log);
  const sandbox = ToolSandbox.create({ config: config.file.sandbox, env, hidden: [config.home], log });
  // Recorded always (it costs a few counters); served only with a metrics port.
  const metrics = createMetrics({ db, processMetrics: config.metrics !== undefined });
  sandbox.onDenial = (kind) => metrics.sandboxDenial(kind);
  // Where conversations may work: the roots resolved (the default one made) and any refused said now.
  const workspaces = await workspacePolicy({ config, sandbox, env, log });
  // MCP connections live as long as the worker: started on first use, restarted when a server dies.
  const mcp = new McpPool({
    sandbox,
    env,
    log,
    // With no usable root, an empty folder of its own: never the folder the worker was started in
    // (a checkout, a home), whose files a root worker's sandbox would hand to the sandbox user.
    workspace: defaultWorkspace(config, workspaces) ?? mkdtempSync(join(tmpdir(), 'herald-mcp-')),
    network: config.file.sandbox.network,
    version: HERALD_VERSION,
  });
  // The stop side channel: one LISTEN connection, aborting this worker's running model requests.
  // (Its listener starts once the worker is created.)
  const stops = new RunningCalls();
  const activities = createActivities(
    {
      db,
      config,
      log,
      tools: builtinTools(config.file, skillSettings(config)),
      hooks,
      searchAttributes,
      env,
      sandbox,
      metrics,
      mcp,
      stops,
    },
    engine,
  );
  const tracing = o.tracing ?? startTracing({ env });
  // A pre-built bundle has no tracing interceptors in it: a tracing worker bundles its own.
  const bundlePath = tracing ? undefined : (o.workflowBundlePath ?? env.HERALD_WORKFLOW_BUNDLE);
  const worker = await Worker.create({
    connection,
    namespace: config.namespace,
    taskQueue: config.taskQueue,
    ...(o.activitiesOnly
      ? {}
      : bundlePath && existsSync(bundlePath)
        ? { workflowBundle: { codePath: bundlePath } }
        : { workflowsPath: WORKFLOWS_PATH }),
    activities,
    ...(tracing ? tracingOptions(tracing, !o.activitiesOnly) : {}),
    dataConverter: workerDataConverter(config.codec, log),
    // Versioned: each run stays on its build (PINNED) and moves at continue-as-new (workflows/run.ts).
    ...(config.deployment
      ? {
          workerDeploymentOptions: {
            version: { deploymentName: config.deployment.name, buildId: config.deployment.buildId },
            useWorkerVersioning: true,
            defaultVersioningBehavior: 'PINNED' as const,
          },
        }
      : {}),
    // Sticky cache, slots and pollers (shared/worker-tuning.ts; docs/capacity.md).
    ...workerCreateTuning(tuning),
    // Heartbeats reach the server at least every 500 ms, so `/stop` reaches a model call in under a second.
    maxHeartbeatThrottleInterval: '500 ms',
    defaultHeartbeatThrottleInterval: '500 ms',
    // A dead worker's sticky queue is given up after 3 s (default 10 s): its conversations' next
    // workflow task goes to the shared queue, so failover is not held up by the workflow side.
    stickyQueueScheduleToStartTimeout: '3 seconds',
    ...(o.workflowsOnMainThread ? { debugMode: true } : {}),
  });

  const stopListener = await listenForStops(config.databaseUrl, stops, log);

  const retentionMs = config.file.events.retentionDays * 86_400_000;
  const prune = () => {
    pruneCheckpoints(config, log);
    return pruneEvents(db, retentionMs).catch((err: unknown) => log.warn({ err: String(err) }, 'event pruning failed'));
  };
  void prune();
  const pruneTimer = setInterval(() => void prune(), 3_600_000);
  pruneTimer.unref();

  let metricsServer: MetricsServer | undefined;
  if (config.metrics) {
    try {
      metricsServer = await startMetricsServer({ ...config.metrics, registry: metrics.registry, coreUrl, log });
    } catch (err) {
      await Promise.all([connection.close(), db.end(), stopListener.close()]).catch(() => {});
      throw new ConfigError(
        `cannot serve metrics on ${config.metrics.host}:${config.metrics.port}: ${(err as Error).message}`,
        'HERALD_METRICS_PORT',
      );
    }
  }

  const done = worker.run().finally(async () => {
    clearInterval(pruneTimer);
    await stopListener.close();
    await metricsServer?.close().catch(() => {});
    await mcp.closeAll();
    await connection.close().catch(() => {});
    await db.end().catch(() => {});
  });
  log.info(
    {
      taskQueue: config.taskQueue,
      temporal: config.temporalAddress,
      temporalAuth: describeSecurity(security),
      database: redactUrl(config.databaseUrl),
      sandbox: sandbox.status,
      payloads: config.codec
        ? `encrypted (key ${config.codec.keys[0]!.id}, ${config.codec.keys.length} held)`
        : 'plaintext',
      ...(metricsServer ? { metrics: metricsServer.url } : {}),
      ...(tracing ? { tracing: true } : {}),
      capacity: tuning,
    },
    'worker started',
  );
  return {
    worker,
    db,
    sandbox,
    metricsUrl: metricsServer?.url,
    done,
    async shutdown() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await done;
    },
  };
}
