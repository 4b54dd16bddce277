/**
 * All of Herald's activities, created once per worker with their dependencies. Workflow code
 * imports only the *type* of this object.
 */
import { approvalActivities } from './approvals.js';
import { checkpointActivities } from './checkpoints.js';
import { compressionSettingsOf } from '../common/context-window.js';
import { compressionActivities } from './compression.js';
import { conversationActivities } from './conversation.js';
import type { ContextEngine } from './context-engine.js';
import { defaultEngine } from './context-engine.js';
import type { ActivityDeps } from './deps.js';
import { modelActivities } from './model/call-model.js';
import { modelSwitchActivities } from './model-switch.js';
import { mcpActivities } from './mcp.js';
import { scheduleActivities } from './schedule.js';
import { toolActivities } from './tools/run-tool.js';
import { redactFailure } from './redact-failure.js';
import { refusalAsFailure } from '../store/failures.js';
import { redactor } from '../runtime/secrets.js';

export function createActivities(deps: ActivityDeps, engine: ContextEngine = defaultEngine) {
  return redactingAll({
    ...conversationActivities(deps),
    ...modelActivities(deps),
    ...toolActivities(deps),
    ...compressionActivities(deps, compressionSettingsOf(deps.config.file.compression), engine),
    ...approvalActivities(deps),
    ...modelSwitchActivities(deps),
    ...mcpActivities(deps),
    ...checkpointActivities(deps),
    ...scheduleActivities(deps),
  });
}

/**
 * What an activity that returns nothing records as its result: Temporal shows an empty result as
 * a base64 `binary/null` payload in the Web UI; this reads as what it is. Workflow code never
 * reads these results, so histories recorded with null results replay the same.
 */
export const DONE_RESULT = { ok: true } as const;

/**
 * Every activity's result and failure pass the redactor before they reach Temporal (docs/tool-sandbox.md);
 * a database refusal fails at once instead of being retried into the same refusal.
 */
function redactingAll<T extends Record<string, (...args: never[]) => Promise<unknown>>>(activities: T): T {
  const out: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(activities)) {
    out[name] = async (...args: never[]) => {
      try {
        const result = await fn(...args);
        return result === undefined ? DONE_RESULT : redactor().redactDeep(result);
      } catch (err) {
        throw redactFailure(refusalAsFailure(err));
      }
    };
  }
  return out as T;
}

export type HeraldActivities = ReturnType<typeof createActivities>;
