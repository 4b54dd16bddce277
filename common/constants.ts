/**
 * Names that form Herald's public contract with Temporal: changing any of them breaks running
 * conversations and every client that talks to them.
 */

/** Workflow type of a conversation. */
export const CONVERSATION_WORKFLOW = 'conversation';

/** The signal that wakes a conversation pinned to an older build so it moves to the current one (`herald deploy drain`). */
export const UPGRADE_SIGNAL = 'upgrade';

/** Default task queue shared by Herald workers (override with HERALD_TASK_QUEUE). */
export const DEFAULT_TASK_QUEUE = 'herald';

const WORKFLOW_ID_PREFIX = 'session-';

/** Workflow ids are business keys so any client can reattach: `session-<sessionId>`. */
export function workflowIdFor(sessionId: string): string {
  return `${WORKFLOW_ID_PREFIX}${sessionId}`;
}

/** The session id a workflow id stands for (`session-abc` → `abc`; any other id is used as is). */
export function sessionIdFromWorkflowId(workflowId: string): string {
  return workflowId.startsWith(WORKFLOW_ID_PREFIX) ? workflowId.slice(WORKFLOW_ID_PREFIX.length) : workflowId;
}

/** Custom search attributes Herald registers and sets, so runs can be filtered in the Web UI. */
export const SEARCH_ATTRIBUTES = {
  sessionId: 'HeraldSessionId',
  /** The active model: a fallback's while one answers. */
  model: 'HeraldModel',
  provider: 'HeraldProvider',
  /** One of HERALD_STATUSES (common/contract.ts): what the conversation is doing or waiting for. */
  status: 'HeraldStatus',
  /** The first user message, shortened to one line. */
  title: 'HeraldTitle',
  /** The conversation's own model (`setModel` changes it; a fallback does not). */
  primaryModel: 'HeraldPrimaryModel',
} as const;

/** All Herald search attributes are Keyword attributes (exact match, and `STARTS_WITH`). */
export const SEARCH_ATTRIBUTE_NAMES: readonly string[] = Object.values(SEARCH_ATTRIBUTES);
