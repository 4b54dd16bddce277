/** Worker Versioning for tests: make a build current the way an operator does, and read a run's build. */
import proto from '@temporalio/proto';
import type { Client } from '@temporalio/client';
import { eventually } from './stack.js';

/**
 * Make a build current (once its workers have registered it), and wait until the server has
 * propagated it to the task queue: a workflow task started before that does not carry "target
 * version changed" (the conversation would move one message later, not at this one).
 */
export async function setCurrentBuild(temporal: Client, deploymentName: string, buildId: string): Promise<void> {
  // The server refuses until the build's workers have registered it, and its deployment bookkeeping
  // (system workflows of its own) is slow on a loaded machine: a generous wait, naming the last refusal.
  await eventually(
    async () => {
      await temporal.workflowService.setWorkerDeploymentCurrentVersion({
        namespace: 'default',
        deploymentName,
        buildId,
        identity: 'deploy-test',
        ignoreMissingTaskQueues: true,
      });
      return true;
    },
    120_000,
    250,
  );
  const States = proto.temporal.api.enums.v1.RoutingConfigUpdateState;
  await eventually(
    async () => {
      const d = await temporal.workflowService.describeWorkerDeployment({ namespace: 'default', deploymentName });
      const info = d.workerDeploymentInfo;
      return (
        info?.routingConfig?.currentDeploymentVersion?.buildId === buildId &&
        // Older servers do not report the state: only the current version is checked there.
        (info.routingConfigUpdateState == null ||
          info.routingConfigUpdateState === States.ROUTING_CONFIG_UPDATE_STATE_COMPLETED ||
          info.routingConfigUpdateState === States.ROUTING_CONFIG_UPDATE_STATE_UNSPECIFIED)
      );
    },
    120_000,
    100,
  );
}

/** The build a conversation's current run is pinned to (undefined: unversioned, or not yet started). */
export async function buildOf(temporal: Client, workflowId: string): Promise<string | undefined> {
  const d = await temporal.workflow.getHandle(workflowId).describe();
  return d.raw.workflowExecutionInfo?.versioningInfo?.deploymentVersion?.buildId ?? undefined;
}
