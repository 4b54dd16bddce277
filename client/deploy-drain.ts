/**
 * Moving every conversation off older builds after a deploy (docs/deploy.md, "Versioned deploys").
 *
 * A conversation's run is pinned to the build that started it and moves to the current build only
 * at continue-as-new, which it decides in a workflow task on its own build (workflows/run.ts). An
 * idle conversation gets no task until its next message — days later, after the old workers are
 * gone — so the drain gives it one: it lists, through Temporal visibility, the running
 * conversations of the deployment whose build is not the current one, and sends each the small
 * `upgrade` signal. An idle run then continues as new onto the current build at once; a run in
 * the middle of a turn finishes the turn on its build, then moves. The old build's workers must run
 * until the drain reports none left.
 */
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/client';
import proto from '@temporalio/proto';
import { CONVERSATION_WORKFLOW, UPGRADE_SIGNAL, sessionIdFromWorkflowId } from '../common/constants.js';

/** The deployment workers join when `HERALD_DEPLOYMENT_NAME` is not set (runtime/config.ts). */
export const DEFAULT_DEPLOYMENT_NAME = 'herald';
/** Signals in flight at once: a large fleet is drained steadily, not in one burst at the server. */
const SIGNAL_CONCURRENCY = 8;
/** Sessions named in a progress report (the count is always exact). */
const SAMPLE_SIZE = 10;

export interface DrainOptions {
  /** The Worker Deployment (`HERALD_DEPLOYMENT_NAME`); default `herald`. */
  deploymentName?: string;
  /** Keep going until no conversation remains on an older build (or `timeoutMs` passes). */
  wait?: boolean;
  /** With `wait`: give up after this long (default 1 hour); the report says what remains. */
  timeoutMs?: number;
  /** With `wait`: how often visibility is read again (default 3 s). */
  pollMs?: number;
  /**
   * With `wait`: a run still listed this long after its signal is signalled again (default 60 s):
   * a signal that reached it before the server had propagated the new current build moved nothing.
   */
  resignalMs?: number;
  /** Each pass's counts, as they are known. */
  onProgress?: (p: DrainProgress) => void;
}

export interface DrainProgress {
  deploymentName: string;
  /** The build conversations move to. */
  currentBuildId: string;
  /** Signals sent in this pass, and so far. */
  signalled: number;
  totalSignalled: number;
  /** Running conversations still pinned to another build, as visibility lists them now. */
  remaining: number;
  /** The same, per build id. */
  byBuild: Record<string, number>;
  /** A few of their session ids. */
  sample: string[];
}

export interface DrainReport extends DrainProgress {
  /** True when none remain (with `wait`, the drain ran until then or until its timeout). */
  done: boolean;
}

/** The deployment has no current build, or cannot be found: nothing to move to. */
export class DrainError extends Error {}

interface Listed {
  workflowId: string;
  runId: string;
  buildId: string;
}

/** A Worker Deployment's current build id, once the server has propagated it to its task queues. */
export async function currentBuild(temporal: Client, deploymentName: string, settleMs = 60_000): Promise<string> {
  const deadline = Date.now() + settleMs;
  for (;;) {
    let info: proto.temporal.api.deployment.v1.IWorkerDeploymentInfo | null | undefined;
    try {
      info = (
        await temporal.workflowService.describeWorkerDeployment({
          namespace: temporal.options.namespace,
          deploymentName,
        })
      ).workerDeploymentInfo;
    } catch (err) {
      throw new DrainError(
        `cannot describe the worker deployment "${deploymentName}" (${err instanceof Error ? err.message : String(err)}); ` +
          'is it the HERALD_DEPLOYMENT_NAME the workers run with?',
      );
    }
    const buildId = info?.routingConfig?.currentDeploymentVersion?.buildId;
    if (!buildId)
      throw new DrainError(
        `the worker deployment "${deploymentName}" has no current build: make one current first ` +
          `(temporal worker deployment set-current-version --deployment-name ${deploymentName} --build-id <build>)`,
      );
    const state = info?.routingConfigUpdateState;
    const States = proto.temporal.api.enums.v1.RoutingConfigUpdateState;
    // A run that gets a task before the change reached its task queue is not told of it.
    const settled =
      state == null ||
      state === States.ROUTING_CONFIG_UPDATE_STATE_COMPLETED ||
      state === States.ROUTING_CONFIG_UPDATE_STATE_UNSPECIFIED;
    if (settled || Date.now() > deadline) return buildId;
    await sleep(250);
  }
}

/** Visibility's list of running conversations of the deployment pinned to another build than `buildId`. */
async function listOnOlderBuilds(temporal: Client, deploymentName: string, buildId: string): Promise<Listed[]> {
  const query = [
    `WorkflowType = '${CONVERSATION_WORKFLOW}'`,
    `ExecutionStatus = 'Running'`,
    `TemporalWorkerDeployment = '${deploymentName}'`,
    `TemporalWorkerDeploymentVersion != '${deploymentName}:${buildId}'`,
  ].join(' AND ');
  const found: Listed[] = [];
  for await (const w of temporal.workflow.list({ query })) {
    const build = buildOfListed(w, deploymentName);
    // Servers before 1.28 wrote the version as `<deployment>.<build>`: the query cannot exclude those.
    if (build === buildId) continue;
    found.push({ workflowId: w.workflowId, runId: w.runId, buildId: build });
  }
  return found;
}

/** The build of a listed run, from its `TemporalWorkerDeploymentVersion` (`<deployment>:<build>`). */
function buildOfListed(w: WorkflowExecutionInfo, deploymentName: string): string {
  // A system attribute: not among the typed keys the client knows.
  const value = w.searchAttributes.TemporalWorkerDeploymentVersion;
  return buildOfVersion(Array.isArray(value) ? value[0] : value, deploymentName);
}

/** `<deployment>:<build>` (or `<deployment>.<build>` from older servers) → the build id. */
export function buildOfVersion(version: unknown, deploymentName: string): string {
  if (typeof version !== 'string') return 'unknown';
  for (const sep of [':', '.'])
    if (version.startsWith(`${deploymentName}${sep}`)) return version.slice(deploymentName.length + 1);
  return version;
}

/** Deployment names go into a visibility query: only the characters a build or deployment name uses. */
function checkName(what: string, name: string): void {
  if (!/^[A-Za-z0-9._\-/]{1,255}$/.test(name))
    throw new DrainError(`${what} "${name.slice(0, 80)}" has characters a deployment name does not use`);
}

/**
 * Signal every running conversation pinned to an older build of the deployment, so each moves to
 * the current build; with `wait`, repeat until none is left. Conversations that end meanwhile are
 * simply gone from the list.
 */
export async function drainOlderBuilds(temporal: Client, options: DrainOptions = {}): Promise<DrainReport> {
  const deploymentName = options.deploymentName ?? DEFAULT_DEPLOYMENT_NAME;
  checkName('the deployment name', deploymentName);
  const timeoutMs = options.timeoutMs ?? 3_600_000;
  const pollMs = options.pollMs ?? 3_000;
  const resignalMs = options.resignalMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  const currentBuildId = await currentBuild(temporal, deploymentName);
  checkName('the current build id', currentBuildId);
  /** When each run was last signalled (by workflow and run id). */
  const signalledAt = new Map<string, number>();
  let totalSignalled = 0;
  for (;;) {
    const listed = await listOnOlderBuilds(temporal, deploymentName, currentBuildId);
    const now = Date.now();
    const due = listed.filter((w) => now - (signalledAt.get(`${w.workflowId}/${w.runId}`) ?? -Infinity) >= resignalMs);
    const signalled = await signalAll(temporal, due);
    for (const w of due) signalledAt.set(`${w.workflowId}/${w.runId}`, now);
    totalSignalled += signalled;
    const byBuild: Record<string, number> = {};
    for (const w of listed) byBuild[w.buildId] = (byBuild[w.buildId] ?? 0) + 1;
    const progress: DrainProgress = {
      deploymentName,
      currentBuildId,
      signalled,
      totalSignalled,
      remaining: listed.length,
      byBuild,
      sample: listed.slice(0, SAMPLE_SIZE).map((w) => sessionIdFromWorkflowId(w.workflowId)),
    };
    options.onProgress?.(progress);
    if (listed.length === 0 || !options.wait || Date.now() + pollMs > deadline)
      return { ...progress, done: listed.length === 0 };
    await sleep(pollMs);
  }
}

/** Send the signal to each run (its current run: a run that moved meanwhile ignores it); how many reached one. */
async function signalAll(temporal: Client, runs: Listed[]): Promise<number> {
  let next = 0;
  let sent = 0;
  const worker = async () => {
    while (next < runs.length) {
      const w = runs[next++]!;
      try {
        await temporal.workflow.getHandle(w.workflowId).signal(UPGRADE_SIGNAL);
        sent += 1;
      } catch (err) {
        // Ended since it was listed: nothing left to move.
        if (!(err instanceof WorkflowNotFoundError)) throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(SIGNAL_CONCURRENCY, runs.length) }, worker));
  return sent;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
