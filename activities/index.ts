/**
 * All of Herald's activities, created once per worker with their dependencies. Workflow code
 * imports only the *type* of this object.
 */
import { approvalActivities } from './approvals.js';
import { compressionSettingsOf } from '../common/context-window.js';
import { compressionActivities } from './compression.js';
import { conversationActivities } from './conversation.js';
import type { ContextEngine } from './context-engine.js';
import { defaultEngine } from './context-engine.js';
import type { ActivityDeps } from './deps.js';
import { modelActivities } from './model/call-model.js';
import { toolActivities } from './tools/run-tool.js';

export function createActivities(deps: ActivityDeps, engine: ContextEngine = defaultEngine) {
  return {
    ...conversationActivities(deps),
    ...modelActivities(deps),
    ...toolActivities(deps),
    ...compressionActivities(deps, compressionSettingsOf(deps.config.file.compression), engine),
    ...approvalActivities(deps),
  };
}

export type HeraldActivities = ReturnType<typeof createActivities>;
