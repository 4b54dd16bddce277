/**
 * The end of a model call: the attempt is settled — its ledger row, its metrics and span, the
 * events watching clients see — and then either the failure (or cancellation) goes to the workflow
 * with the turn's totals, or the reply is stored at its sequence and described to the workflow.
 */
import { CancelledFailure } from '@temporalio/activity';
import type { Info as ActivityInfo } from '@temporalio/activity';
import type { CallModelArgs, CallModelResult } from '../../common/activity-types.js';
import { markUndoable } from '../../common/checkpoints.js';
import type { TurnAttempts } from '../../common/attempts.js';
import { priceUsage, pricingFor } from '../../shared/pricing.js';
import type { ProviderRef } from '../../common/providers.js';
import type { ToolCallRef } from '../../common/tool-batch.js';
import { oneLine } from '../../common/text.js';
import type { ActivityDeps } from '../deps.js';
import type { EventPublisher } from '../events/publisher.js';
import { describeMcpCall } from '../../mcp/tools.js';
import { mcpListChanged } from '../../mcp/list-changed.js';
import { allowlistedRules } from '../../store/approvals.js';
import type { LedgerEntry, LedgerOutcome } from '../../store/ledger.js';
import { recordModelCall, turnAttempts } from '../../store/ledger.js';
import { writeMessage } from '../../store/messages.js';
import { untilDbAnswers } from '../../store/outage.js';
import { loadCommandSafety } from '../../command-safety/classify.js';
import { attemptsDetail, ledgerEntry, withAttempts } from './call-ledger.js';
import type { CallMeter } from './call-meter.js';
import type { PreparedCall } from './call-prepare.js';
import type { StreamOutcome } from './call-stream.js';
import { describeCall, hasUnterminatedScratchpad, repairedToolNames, uniqueCallIds } from './describe-call.js';
import { boundCallRefs, capToolCalls } from './reply-limits.js';
import type { ModelResponse, TokenCounts } from '../../model-adapters/types.js';

const PREVIEW_CHARS = 200;
/** The most text a call result carries; longer final replies are cut here (the transcript has it all). */
const MAX_RESULT_TEXT = 200_000;
const NO_TOKENS: TokenCounts = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 };

/** One attempt of a model call, as settling it needs it. */
export interface CallAttempt {
  deps: ActivityDeps;
  a: CallModelArgs;
  info: Pick<
    ActivityInfo,
    'activityId' | 'attempt' | 'workflowExecution' | 'startToCloseTimeoutMs' | 'currentAttemptScheduledTimestampMs'
  >;
  /** The activity's cancellation: a save waiting for the database stops waiting. */
  cancellation: AbortSignal;
  ref: ProviderRef;
  pub: EventPublisher;
  meter: CallMeter;
  /** When the attempt began (ms since the epoch). */
  started: number;
}

function priced(c: CallAttempt, t: TokenCounts, model: string) {
  return priceUsage(t, pricingFor(c.deps.config.file, c.ref.provider, c.ref.model, model));
}

function entry(c: CallAttempt, outcome: LedgerOutcome, t: TokenCounts, model: string): LedgerEntry {
  return ledgerEntry(c.a, c.info, outcome, priced(c, t, model), Date.now() - c.started, model);
}

/**
 * An attempt that got no reply: measured, on the ledger (with what the provider reported it used),
 * told to watching clients; the returned error is what the activity throws.
 */
export async function settleFailure(
  c: CallAttempt,
  outcome: Exclude<StreamOutcome, { kind: 'reply' }>,
  cancellation: AbortSignal,
): Promise<Error> {
  const durationMs = Date.now() - c.started;
  const { reported } = outcome;
  const model = c.ref.model;
  const cost = priced(c, reported ?? NO_TOKENS, model).cost_usd;
  if (outcome.kind === 'cancelled') {
    c.meter.measure({ outcome: 'cancelled', durationMs, model, tokens: reported, costUsd: cost });
    const turn = await recordModelCall(c.deps.db, entry(c, 'cancelled', reported ?? NO_TOKENS, model)).catch(
      () => undefined,
    );
    c.pub.emit('thinking', { state: 'stopped', cancelled: true, durationMs });
    await c.pub.flush();
    const reason: unknown = cancellation.reason;
    // The cancellation carries the turn's totals to the workflow: a stopped call is counted too.
    return new CancelledFailure(
      reason instanceof CancelledFailure ? reason.message : 'CANCELLED',
      turn ? [attemptsDetail(turn)] : [],
    );
  }
  const { failure } = outcome;
  const reason = failure.type ?? 'unknown';
  c.meter.measure({ outcome: 'error', durationMs, model, tokens: reported, costUsd: cost, reason });
  const turn = await recordModelCall(c.deps.db, {
    ...entry(c, 'error', reported ?? NO_TOKENS, model),
    errorType: reason,
  }).catch(() => undefined);
  c.pub.emit('status', {
    kind: 'model_error',
    reason: failure.type,
    message: failure.message,
    attempt: c.info.attempt,
    willRetry: !failure.nonRetryable,
  });
  c.pub.emit('thinking', { state: 'stopped', failed: true, durationMs });
  await c.pub.flush();
  return withAttempts(failure, turn);
}

/** A reply, from the provider this attempt or kept from an earlier attempt whose save failed. */
export interface Reply {
  response: ModelResponse;
  /** Kept from an earlier attempt: no request was made by this one. */
  kept: boolean;
  /** The ledger row the reply's own attempt could not write (a kept reply only). */
  unrecorded: LedgerEntry | undefined;
}

/** What saving a reply got as far as, for the activity to keep the reply when the save fails. */
export interface SaveProgress {
  turn: TurnAttempts | undefined;
  unrecorded: LedgerEntry | undefined;
}

/**
 * A reply: its usage on the ledger first (it is paid for), then the assistant message at its
 * sequence, then the small record the workflow gets. `progress` says how far it got.
 */
export async function settleReply(
  c: CallAttempt,
  prepared: PreparedCall,
  reply: Reply,
  progress: SaveProgress,
): Promise<CallModelResult> {
  const { deps, a } = c;
  const { response } = reply;
  await deps.hooks.postLlmCall({
    ...prepared.scope,
    content: response.content,
    toolCalls: response.toolCalls.map((tc) => tc.function.name),
    finishReason: response.finishReason,
  });
  const usage = priced(c, response.tokens, response.model);
  // A kept reply made no request this attempt: its provider call was counted when it was made.
  if (!reply.kept)
    c.meter.measure({
      outcome: 'ok',
      durationMs: Date.now() - c.started,
      model: response.model,
      tokens: response.tokens,
      costUsd: usage.cost_usd,
      finishReason: response.finishReason,
    });
  await recordReplyUsage(c, reply, progress);
  const result = await storeReply(c, prepared, response);
  const durationMs = Date.now() - c.started;
  c.pub.emit('thinking', { state: 'stopped', durationMs });
  await c.pub.flush();
  return {
    ...result,
    usage,
    model: response.model,
    durationMs,
    ...((await mcpListChanged(deps, a.mcp)) ? { mcpChanged: true } : {}),
    ...(progress.turn ? { turnAttempts: progress.turn } : {}),
  };
}

/**
 * The longest a reply's save waits for the database inside its attempt: the documented outage
 * bound (docs/reliability.md), and never past the attempt's own start-to-close timeout (with a
 * margin to fail in): the reply is in this worker's memory only, so the attempt holds it (and
 * heartbeats) rather than completing without it.
 */
export const SAVE_WAIT_MAX_MS = 10 * 60_000;
const SAVE_MARGIN_MS = 30_000;

export function saveWaitMs(info: CallAttempt['info'], now = Date.now()): number {
  const closesAt = info.currentAttemptScheduledTimestampMs + info.startToCloseTimeoutMs;
  if (!info.startToCloseTimeoutMs || !Number.isFinite(closesAt)) return SAVE_WAIT_MAX_MS;
  return Math.max(0, Math.min(SAVE_WAIT_MAX_MS, closesAt - SAVE_MARGIN_MS - now));
}

/** A database step of saving a reply: a transient failure is waited out inside the attempt. */
function saving<T>(c: CallAttempt, step: () => Promise<T>): Promise<T> {
  return untilDbAnswers(step, { signal: c.cancellation, maxMs: saveWaitMs(c.info) });
}

/**
 * The call is paid for: its usage is recorded before anything else, waiting out an outage; the
 * activity never completes without its row. A kept reply made no request: only the row its own
 * attempt could not write is written now, else the totals are read.
 */
async function recordReplyUsage(c: CallAttempt, reply: Reply, progress: SaveProgress): Promise<void> {
  const { db } = c.deps;
  const { response } = reply;
  const row = reply.kept ? reply.unrecorded : entry(c, 'ok', response.tokens, response.model);
  if (!row) {
    progress.turn = await turnAttempts(db, c.a.conversationId, c.a.turnId).catch(() => undefined);
    return;
  }
  progress.unrecorded = row;
  progress.turn = await saving(c, () => recordModelCall(db, row));
  progress.unrecorded = undefined;
}

type StoredReply = Pick<
  CallModelResult,
  'finishReason' | 'toolCalls' | 'text' | 'textTruncated' | 'reasoning' | 'scratchpadUnterminated'
>;

/** The assistant message written at its sequence, and the reply as the workflow sees it. */
async function storeReply(c: CallAttempt, prepared: PreparedCall, response: ModelResponse): Promise<StoredReply> {
  const { deps, a } = c;
  const { db, config } = deps;
  const { mcpTools } = prepared;
  const enabled = mcpTools.size ? [...a.tools, ...mcpTools.keys()] : a.tools;
  const capped = capToolCalls(repairedToolNames(uniqueCallIds(response.toolCalls, a.seq), enabled));
  const toolCalls = capped.calls;
  const terminal = toolCalls.some((tc) => tc.function.name === 'terminal');
  // "always" approvals cover terminal commands and MCP tools that need approval.
  const mcpCall = toolCalls.some((tc) => mcpTools.has(tc.function.name));
  const allowlist = terminal || mcpCall ? await allowlistedRules(db) : new Set<string>();
  if (terminal) await loadCommandSafety();
  await saving(c, () =>
    writeMessage(db, a.sessionId, {
      seq: a.seq,
      role: 'assistant',
      content: response.content,
      toolCalls,
      reasoning: response.reasoning,
      reasoningDetails: response.reasoningDetails,
      finishReason: response.finishReason,
      turnId: a.turnId,
    }),
  );
  const isFinal = toolCalls.length === 0;
  const text = isFinal ? response.content.slice(0, MAX_RESULT_TEXT) : oneLine(response.content, PREVIEW_CHARS);
  const reasoning = response.reasoning ? oneLine(response.reasoning, 2000) : null;
  const refs = toolCalls.map((tc) => {
    const mcpRow = mcpTools.get(tc.function.name);
    const ref = mcpRow
      ? describeMcpCall(tc, mcpRow, config.file.mcp.servers[mcpRow.server], allowlist)
      : markUndoable(describeCall(deps.tools, enabled, tc, allowlist), config.file.checkpoints);
    if (!capped.error) return ref;
    const tooMany: ToolCallRef = {
      kind: 'invalid',
      id: ref.id,
      name: ref.name,
      summary: ref.summary,
      timeoutSeconds: 30,
      problem: 'too_many_calls',
      argsError: capped.error,
    };
    return tooMany;
  });
  return {
    finishReason: response.finishReason,
    toolCalls: boundCallRefs(refs, Buffer.byteLength(text) + Buffer.byteLength(reasoning ?? '') + 1000),
    text,
    textTruncated: text.length < response.content.length,
    reasoning,
    scratchpadUnterminated: hasUnterminatedScratchpad(response.content),
  };
}
