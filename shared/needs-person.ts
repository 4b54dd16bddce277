/**
 * "Which conversations need me?": the HeraldStatus values where a conversation waits for a person
 * (an approval, an answer to a clarify question, or a look after a failed turn), the visibility
 * query that finds them, and the Temporal Web UI link that opens the workflow list filtered by it.
 * Printed by `herald dev`'s banner and `herald sessions`; docs/web-ui.md shows it in use.
 */
import type { HeraldStatus } from '../common/contract.js';
import { SEARCH_ATTRIBUTES } from '../common/constants.js';

export const NEEDS_PERSON_STATUSES: readonly HeraldStatus[] = ['awaiting_approval', 'awaiting_clarify', 'failed'];

/**
 * Running conversations whose status needs a person. `ExecutionStatus` keeps out runs that were
 * terminated while waiting (their last HeraldStatus stays as it was).
 */
export const NEEDS_PERSON_QUERY = `ExecutionStatus="Running" AND ${SEARCH_ATTRIBUTES.status} IN (${NEEDS_PERSON_STATUSES.map((s) => `"${s}"`).join(', ')})`;

/** The Web UI's workflow list of `namespace`, filtered by `query` (the list page reads `?query=`). */
export function webUiListUrl(uiUrl: string, namespace: string, query: string): string {
  return `${uiUrl.replace(/\/+$/, '')}/namespaces/${encodeURIComponent(namespace)}/workflows?query=${encodeURIComponent(query)}`;
}

/** The Web UI link that lists the conversations needing a person. */
export function needsPersonUrl(uiUrl: string, namespace: string): string {
  return webUiListUrl(uiUrl, namespace, NEEDS_PERSON_QUERY);
}
