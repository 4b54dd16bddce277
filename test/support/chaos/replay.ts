/**
 * Every run a chaos run produced, replayed against the workflow code that made it. A worker killed
 * mid-task, a server that restarted, a continue-as-new the server suggested: each leaves a history
 * whose replay must take the same decisions, or querying the closed run (and any worker that picks
 * it up again) fails with a nondeterminism error. The committed fixtures replay paths chosen in
 * advance; this replays the paths the faults chose.
 */
import type { Client } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { workerDataConverter } from '../../../runtime/data-converter.js';
import { WORKFLOWS_PATH } from '../../../workers/worker.js';
import { runsOf } from '../histories.js';

export interface ReplayOutcome {
  runs: number;
  /** `<workflow id> run <n>: <error>`, one per run that did not replay. */
  failures: string[];
}

export async function replayEveryRun(
  client: Client,
  workflowIds: readonly string[],
  bundlePath: string | undefined,
): Promise<ReplayOutcome> {
  const histories: Array<{ workflowId: string; history: unknown }> = [];
  const labels: string[] = [];
  const failures: string[] = [];
  for (const workflowId of workflowIds) {
    try {
      const runs = await runsOf(client, workflowId);
      runs.forEach((r, i) => {
        histories.push({ workflowId, history: { events: r.events } });
        labels.push(`${workflowId} run ${i + 1}`);
      });
    } catch (err) {
      failures.push(`${workflowId}: its history could not be read: ${String(err).slice(0, 200)}`);
    }
  }
  let i = 0;
  for await (const result of Worker.runReplayHistories(
    bundlePath
      ? { workflowBundle: { codePath: bundlePath } }
      : { workflowsPath: WORKFLOWS_PATH, dataConverter: workerDataConverter() },
    histories,
  )) {
    if (result.error) failures.push(`${labels[i]}: ${String(result.error).slice(0, 300)}`);
    i++;
  }
  return { runs: histories.length, failures };
}
