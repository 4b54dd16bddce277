/**
 * The fuzzer makes workflow tasks fail on purpose, thousands of times: the Temporal core's
 * per-failure warnings would bury the report. Install a runtime that keeps only what `log` wants.
 */
import { DefaultLogger, Runtime } from '@temporalio/worker';

export function quietTemporalLogs(log?: (line: string) => void): void {
  try {
    Runtime.install({
      logger: new DefaultLogger('ERROR', (e) => log?.(`[temporal] ${e.message}`)),
      telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } },
    });
  } catch {
    // a runtime is already installed: keep it
  }
}
