/** `herald dev`, `herald worker` and `herald demo`: the commands that run Herald's processes. */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import type { HeraldConfig } from '../../runtime/config.js';
import { config, untilSignal } from './shared.js';

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

export function registerDev(program: Command): void {
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
      const { runDev } = await import('../dev-command.js');
      process.exitCode = await runDev(withMetricsPort(config(), o.metricsPort), o);
    });
}

export function registerWorker(program: Command): void {
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
        import('../connection.js'),
        import('../../workers/worker.js'),
        import('../../runtime/logger.js'),
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
}

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description('run a scripted conversation on the embedded stack (no real model needed)')
    .option('--once', 'exit after the demo instead of keeping the stack up')
    .action(async (o: { once?: boolean }) => {
      const { runDemo } = await import('../demo.js');
      await runDemo({ once: Boolean(o.once) });
    });
}
