/**
 * What a conversation shows outside itself: the Web UI's current details (Markdown), the search
 * attributes runs are filtered by, and the result a message gets when the conversation ended
 * before it ran.
 */
import { describeChanges } from '../common/checkpoints.js';
import { upsertSearchAttributes } from '@temporalio/workflow';
import { defineSearchAttributeKey } from '@temporalio/common';
import { SEARCH_ATTRIBUTES } from '../common/constants.js';
import type { HeraldStatus, TurnResult } from '../common/contract.js';
import { titleText } from '../common/delegation.js';
import { emptyUsage } from '../common/messages.js';
import { MAX_SEARCH_ATTRIBUTE_CHARS, MAX_TITLE_CHARS } from './limits.js';
import type { ChildApproval } from './child-approvals.js';
import type { ConversationState } from './state.js';
import { leftOutLines, preview } from './state.js';
import type { TurnProgress } from './turn.js';

/** Choices shown in the details (a clarify offers a handful; the details stay short). */
const MAX_DETAIL_CHOICES = 10;

const SA = {
  sessionId: defineSearchAttributeKey(SEARCH_ATTRIBUTES.sessionId, 'KEYWORD'),
  model: defineSearchAttributeKey(SEARCH_ATTRIBUTES.model, 'KEYWORD'),
  provider: defineSearchAttributeKey(SEARCH_ATTRIBUTES.provider, 'KEYWORD'),
  status: defineSearchAttributeKey(SEARCH_ATTRIBUTES.status, 'KEYWORD'),
  title: defineSearchAttributeKey(SEARCH_ATTRIBUTES.title, 'KEYWORD'),
  primaryModel: defineSearchAttributeKey(SEARCH_ATTRIBUTES.primaryModel, 'KEYWORD'),
};
type SaName = keyof typeof SA;

/** The attributes a session prepared before HeraldTitle and HeraldPrimaryModel existed may set. */
const FIRST_ATTRIBUTES: readonly string[] = [
  SEARCH_ATTRIBUTES.sessionId,
  SEARCH_ATTRIBUTES.model,
  SEARCH_ATTRIBUTES.provider,
  SEARCH_ATTRIBUTES.status,
];

/** Keyword values are capped (Temporal refuses one over 2 KB, and the run with it). */
const keyword = (v: string) => v.slice(0, MAX_SEARCH_ATTRIBUTE_CHARS);

/**
 * Search attributes set whenever what they show changes: the status of every state-query transition (plus `failed`), the active and the primary model,
 * the title. Only changed values are upserted, so a turn costs an upsert per status change, and
 * only names the worker registered are used (an unregistered one would fail the workflow task).
 */
export class SearchAttributePublisher {
  /** What this run has upserted (search attributes are not carried by continue-as-new). */
  private readonly published = new Map<SaName, string>();

  publish(state: ConversationState, status: HeraldStatus): void {
    if (!state.searchAttributes) return;
    const allowed = state.searchAttributeNames ?? FIRST_ATTRIBUTES;
    const wanted: Array<[SaName, string | undefined]> = [
      ['sessionId', state.conversationId],
      ['model', state.provider.model],
      ['provider', state.provider.provider],
      ['status', status],
      ['title', state.title],
      ['primaryModel', state.primary.model],
    ];
    const changes = wanted
      .filter(([name, value]) => value && allowed.includes(SA[name].name))
      .map(([name, value]) => [name, keyword(value!)] as const)
      .filter(([name, value]) => this.published.get(name) !== value);
    if (!changes.length) return;
    for (const [name, value] of changes) this.published.set(name, value);
    upsertSearchAttributes(changes.map(([name, value]) => ({ key: SA[name], value })));
  }
}

/** HeraldStatus: the state query's status, or `failed` when idle after a failed turn. */
export function heraldStatus(
  state: ConversationState,
  current: TurnProgress | undefined,
  ended: boolean,
  compressing: boolean,
): HeraldStatus {
  if (ended) return 'ended';
  if (current) return current.status;
  if (compressing) return 'compressing';
  return state.lastResult?.failed ? 'failed' : 'idle';
}

/** A conversation's title: its first message (a child's: its goal), one line, bounded. */
export function titleOf(firstMessage: string): string {
  const text = titleText(firstMessage);
  // A child's brief: its goal is the first paragraph, the rest is Herald's instructions.
  return preview(text === firstMessage ? text : text.split('\n\n')[0]!, MAX_TITLE_CHARS);
}

export function endedResult(state: ConversationState, messageId: string): TurnResult {
  return {
    final_response: null,
    last_reasoning: null,
    messages_count: state.nextSeq,
    api_calls: 0,
    completed: false,
    interrupted: false,
    failed: true,
    partial: false,
    turn_exit_reason: 'conversation_ended',
    model: state.provider.model,
    provider: state.provider.provider,
    usage: { turn: emptyUsage(), session: state.sessionUsage },
    estimated_cost_usd: state.sessionUsage.cost_usd,
    session_id: state.sessionId,
    turn: state.turn,
    message_id: messageId,
    error: 'the conversation ended before this message ran',
  };
}

/** Markdown shown as the workflow's current details in the Web UI. */
export function describe(
  state: ConversationState,
  current: TurnProgress | undefined,
  ended: boolean,
  backgroundSessions: string[],
  compressing = false,
  childApprovals: readonly ChildApproval[] = [],
): string {
  const status = heraldStatus(state, current, ended, compressing);
  const lines = [
    `**Status:** ${status} · **Session:** \`${state.sessionId}\` · **Turn:** ${state.turn}`,
    `**Model:** ${state.provider.model || '(resolving)'} via ${state.provider.provider}${
      state.primary.model && state.primary.model !== state.provider.model
        ? ` (fallback; primary ${state.primary.model})`
        : ''
    }`,
  ];
  if (state.title) lines.push(`**Title:** ${state.title}`);
  // While a turn runs it answers the current message; the last reply is the previous turn's.
  if (current?.messageText !== undefined) lines.push(`**Current message:** ${preview(current.messageText, 300)}`);
  if (current) lines.push(`**Iteration:** ${current.iteration} of ${state.maxIterations}`);
  if (current?.currentTools.length) lines.push(`**Running:** ${current.currentTools.join(', ')}`);
  if (current?.children.length)
    lines.push(`**Child agents:** ${current.children.map((id) => `\`session-${id}\``).join(', ')}`);
  if (backgroundSessions.length)
    lines.push(`**Child agents in the background:** ${backgroundSessions.map((id) => `\`session-${id}\``).join(', ')}`);
  if (state.subagent) lines.push(`**Delegated by:** \`session-${state.subagent.parentSessionId}\``);
  if (state.sandbox && !state.sandbox.active)
    lines.push(
      `**⚠ No sandbox:** tool commands run with the worker's own access (${state.sandbox.warning ?? 'unavailable'})`,
    );
  for (const a of state.pendingApprovals.filter((x) => !x.decision)) {
    lines.push(
      `**Approval needed** (\`${a.requestId}\`, ${a.reason}): \`${preview(a.command, 200)}\` — ` +
        `\`herald approve ${state.conversationId} ${a.requestId} once|session|always|deny [--rule]\``,
    );
  }
  for (const a of childApprovals) {
    lines.push(
      `**Approval needed by child agent** \`session-${a.child}\` (\`${a.requestId}\`, ${a.reason}): \`${preview(a.command, 200)}\` — ` +
        `\`herald approve ${state.conversationId} ${a.requestId} once|session|always|deny [--rule]\``,
    );
  }
  if (state.clarify && state.clarify.answer === undefined) {
    lines.push(
      `**Question for the user:** ${preview(state.clarify.question, 300)} — \`herald answer ${state.conversationId} "…"\``,
    );
    // The choices the model offered, numbered as the chat numbers them (any other answer is fine too).
    const choices = state.clarify.choices.slice(0, MAX_DETAIL_CHOICES);
    if (choices.length) lines.push(`**Choices:** ${choices.map((c, i) => `${i + 1}) ${preview(c, 100)}`).join(' · ')}`);
  }
  const left = leftOutLines(state, 8);
  if (left.length)
    lines.push(
      `**Left out of the prompt (looked like prompt injection):** ${left.map((l) => preview(l, 200)).join(' · ')}`,
    );
  if (state.queue.length) lines.push(`**Queued:** ${state.queue.length} message(s)`);
  if (state.lastChanges)
    lines.push(
      `**Workspace, turn ${state.lastChanges.turn}:** ${describeChanges(state.lastChanges)} (\`herald diff ${state.conversationId} --turn ${state.lastChanges.turn}\`)`,
    );
  const guard = state.loopGuardStats;
  if (guard && guard.nudges + guard.refusals + guard.halts > 0)
    lines.push(
      `**Loop guard:** ${guard.nudges} repeated call(s) nudged, ${guard.refusals} refused, ${guard.halts} turn(s) halted`,
    );
  const last = state.lastResult;
  if (!current && last?.final_response) lines.push(`**Last reply:** ${preview(last.final_response, 300)}`);
  if (!current && state.lastError) lines.push(`**Last error:** ${preview(state.lastError, 300)}`);
  lines.push(`**Usage:** ${state.sessionUsage.total_tokens} tokens, $${state.sessionUsage.cost_usd.toFixed(4)}`);
  return lines.join('\n\n');
}
