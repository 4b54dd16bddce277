/**
 * The model-call activity: load the transcript, call the provider (streaming, cancellable),
 * write the assistant message at the sequence the workflow gave it, and return a small record.
 * One model call per activity; the loop lives in the workflow.
 */
import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import type { Info as ActivityInfo } from '@temporalio/activity';
import type { CallModelArgs, CallModelResult } from '../../common/activity-types.js';
import { DELEGATE_TOOL } from '../../common/delegation.js';
import { closestName, repairToolName } from '../../common/fuzzy.js';
import type { ChatMessage, ToolCall } from '../../common/messages.js';
import { pricingFor, priceUsage } from '../../common/pricing.js';
import { repairMessageOrder } from '../../common/role-order.js';
import { oneLine } from '../../common/text.js';
import { canonicalJson } from '../../common/loop-guard.js';
import { shortHash } from '../tools/short-hash.js';
import { checkCommand } from '../command-safety/approval-check.js';
import { loadCommandSafety } from '../command-safety/classify.js';
import type { ToolCallRef } from '../../common/tool-batch.js';
import type { TodoItem } from '../../common/todos.js';
import { allowlistedRules } from '../store/approvals.js';
import { markUndoable } from '../../common/checkpoints.js';
import type { ActivityDeps } from '../deps.js';
import { keepHeartbeating } from '../deps.js';
import { EventPublisher } from '../events/publisher.js';
import type { LedgerEntry, LedgerOutcome } from '../store/ledger.js';
import { activityAttempts, attemptKey, recordModelCall, turnAttempts } from '../store/ledger.js';
import type { TurnAttempts } from '../../common/attempts.js';
import { SPEND_LIMIT_REACHED, capReached } from '../../common/attempts.js';
import { appendToContent, loadTranscript, writeMessage } from '../store/messages.js';
import { sessionPrompt } from '../store/sessions.js';
import { steerNote } from '../../common/markers.js';
import { appendNote, withToolDigest } from './paused-digest.js';
import { DEFAULT_TOOL_TIMEOUT_SECONDS, parseToolArgs } from '../tools/registry.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { DelegateArgs } from '../tools/delegate.js';
import { DEFAULT_REQUEST_TIMEOUT_SECONDS, dispatchModelCall } from './dispatch.js';
import { boundCallRefs, capToolCalls } from './reply-limits.js';
import { keepReply, takeReply } from './reply-cache.js';
import { DEFAULT_STREAM_STALL_SECONDS, watchStall } from './stall-watch.js';
import { isTransientDbError } from '../store/failures.js';
import { toModelFailure } from './failures.js';
import { staleEndpointHint } from './stale-endpoint.js';
import { currentEndpoint, defaultOutputCap, isLocalEndpoint, isLocalProvider } from '../../common/providers.js';
import type { ModelResponse, TokenCounts } from './types.js';
import type { ModelOutcome } from '../metrics.js';
import { startModelSpan } from '../tracing.js';
import { STORAGE_UNAVAILABLE, STORE_REJECTED } from '../../common/error-reasons.js';
import { requestSchemas } from '../tools/schema-economy.js';
import { temperatureFor } from '../../common/temperature.js';
import type { McpToolRow } from '../store/mcp-tools.js';
import { describeMcpCall, mcpSchemas, resolveMcpTools } from '../mcp/tools.js';
import { mcpListChanged } from '../mcp/list-changed.js';

const PREVIEW_CHARS = 200;

/**
 * How long a call aborted by a stop notice waits for Temporal's cancellation. The notice is sent
 * right after the `stop` signal was accepted, so the cancellation follows within a heartbeat or
 * two; a notice with none after it (a stop while idle that met a new turn, a forged notice) must
 * not end the call, so after this long it fails as a retryable `network` failure: the activity's
 * retry makes the request again.
 */
export const SIDE_STOP_GRACE_MS = 10_000;

/** The most text a call result carries; longer final replies are cut here (the transcript has it all). */
const MAX_RESULT_TEXT = 200_000;
const NO_TOKENS = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 };

/**
 * A database failure while `doing`: unreachable for now is retryable (the workflow waits longer
 * than for a provider); anything else fails for good at once (it would on every retry).
 */
export function storageFailure(err: unknown, doing: string): ApplicationFailure {
  const message = (err as Error).message ?? String(err);
  if (!isTransientDbError(err))
    return ApplicationFailure.create({
      type: STORE_REJECTED,
      message: `the database refused ${doing}: ${message}`,
      nonRetryable: true,
    });
  return ApplicationFailure.create({
    type: STORAGE_UNAVAILABLE,
    message: `the database is unavailable while ${doing}: ${message}`,
    nonRetryable: false,
  });
}

/** How long a provider's stream may send nothing: its own setting, the model section's, or the default. */
/**
 * A local server on a CPU sends nothing while it evaluates the prompt (llama.cpp took minutes for
 * a 2K-token prompt on a busy 2-core machine), so its silence is allowed to last longer.
 */
const LOCAL_STREAM_STALL_SECONDS = 600;

function stallSecondsFor(file: ActivityDeps['config']['file'], provider: string): number {
  const own = (file.providers as Record<string, { streamStallSeconds?: number } | undefined>)[provider];
  const fallback = isLocalProvider(provider) ? LOCAL_STREAM_STALL_SECONDS : DEFAULT_STREAM_STALL_SECONDS;
  return own?.streamStallSeconds ?? file.model.streamStallSeconds ?? fallback;
}

export function modelActivities(deps: ActivityDeps) {
  const { db, config } = deps;

  return {
    async callModel(a: CallModelArgs): Promise<CallModelResult> {
      const ctx = Context.current();
      const attempt = ctx.info.attempt;
      if (attempt > 1 && a.spendLimit) await refuseOverSpend(db, a, ctx.info);
      const started = Date.now();
      // The endpoint as this worker's configuration gives it now (unless the caller pinned one).
      const ref = currentEndpoint(a.provider, config.providerDefaults);
      const pub = new EventPublisher(db, a.conversationId, a.turnId, deps.log, { iteration: a.iteration });
      if (attempt > 1) {
        pub.emit('stream.reset', {
          iteration: a.iteration,
          attempt,
          reason: 'the model call is being retried; discard its earlier partial output',
        });
      }
      pub.emit('step', { iteration: a.iteration, max: a.maxIterations });
      pub.emit('thinking', { state: 'started', model: ref.model, provider: ref.provider, attempt });
      const stopHeartbeat = keepHeartbeating(() => ctx.heartbeat({ phase: 'model', attempt }));
      let messages: ChatMessage[];
      // The conversation's MCP tools: names and hashes from workflow state, schemas from the store.
      let mcpTools: Map<string, McpToolRow>;
      try {
        messages = await buildMessages(deps, a);
        mcpTools = await resolveMcpTools(db, a.mcp?.tools ?? []);
      } catch (err) {
        stopHeartbeat();
        throw storageFailure(err, 'loading the transcript');
      }
      const scope = {
        conversationId: a.conversationId,
        sessionId: a.sessionId,
        turnId: a.turnId,
        model: ref.model,
        provider: ref.provider,
      };
      // Hook context rides on the current request only (appended to the newest user message).
      const extra = await deps.hooks.preLlmCall({ ...scope, messages });
      if (extra.length) {
        const lastUser = messages.findLastIndex((m) => m.role === 'user');
        const target = messages[lastUser];
        if (target) messages[lastUser] = { ...target, content: `${target.content ?? ''}\n\n${extra.join('\n\n')}` };
      }
      const slotKey = `${a.sessionId}:${a.seq}:${a.turnId}`;
      const keptReply = takeReply(slotKey);
      const kept = keptReply?.response;
      // The paid attempt's ledger row, while it could not be written (the database was down too).
      let unrecorded: LedgerEntry | undefined = keptReply?.unrecorded;
      const watch = watchStall(ctx.cancellationSignal, stallSecondsFor(config.file, ref.provider) * 1000);
      // A stop notice (activities/events/stop-notices.ts) aborts the request before the cancellation arrives.
      const sideStop = new AbortController();
      const forgetCall = kept ? () => {} : (deps.stops?.register(a.conversationId, a.turnId, sideStop) ?? (() => {}));
      // What the provider said this attempt used so far: a failed or cancelled attempt is still paid for.
      let reported: TokenCounts | undefined;
      const priced = (t: TokenCounts, model: string) =>
        priceUsage(t, pricingFor(config.file, ref.provider, ref.model, model));
      const entry = (outcome: LedgerOutcome, usage: ReturnType<typeof priceUsage>, durationMs: number, model: string) =>
        ledgerEntry(a, ctx.info, outcome, usage, durationMs, model);
      // Metrics: time to first token is measured from the request; labels are bounded in activities/metrics.ts.
      const requestAt = Date.now();
      const maxOutputTokens =
        a.maxOutputTokens ?? ref.maxOutputTokens ?? config.file.model.maxOutputTokens ?? defaultOutputCap(ref);
      const endSpan = startModelSpan({
        provider: ref.provider,
        apiMode: ref.apiMode,
        model: ref.model,
        attempt,
        maxOutputTokens,
      });
      let firstOutputAt: number | undefined;
      const firstOutput = () => (firstOutputAt ??= Date.now());
      const measured = (
        outcome: ModelOutcome,
        durationMs: number,
        model: string,
        t?: TokenCounts,
        cost?: number,
        reason?: string,
        finishReason?: string,
      ) => {
        const firstTokenMs = firstOutputAt === undefined ? undefined : firstOutputAt - requestAt;
        endSpan({ outcome, model, tokens: t, finishReason, reason, costUsd: cost, firstTokenMs });
        deps.metrics.modelAttempt({
          provider: ref.provider,
          model,
          outcome,
          reason,
          attempt,
          durationMs,
          firstTokenMs,
          tokens: t,
          costUsd: cost,
        });
      };
      const endFlight = deps.metrics.modelStarted();
      const progress = () => {
        watch.progress();
        ctx.heartbeat({ phase: 'model', attempt, lastProgressAt: watch.lastProgressAt() });
      };
      let response: ModelResponse;
      try {
        response =
          kept ??
          (await dispatchModelCall(
            ref,
            {
              model: ref.model,
              messages,
              // MCP schemas are passed through as the servers wrote them (adapted at discovery).
              tools: [...requestSchemas(deps.tools, a.tools, ref, config.file.tools.schemas), ...mcpSchemas(mcpTools)],
              maxOutputTokens,
              temperature: temperatureFor(config.file, ref),
              cacheTtl: config.file.model.promptCacheTtl,
              toolChoiceNone: a.toolChoiceNone,
              cutRunaways: isLocalEndpoint(ref),
            },
            {
              signal: AbortSignal.any([watch.signal, sideStop.signal]),
              sink: {
                text: (d) => {
                  firstOutput();
                  progress();
                  pub.textDelta(d);
                },
                reasoning: (d) => {
                  firstOutput();
                  progress();
                  pub.reasoningDelta(d);
                },
                toolGenerating: (name) => {
                  firstOutput();
                  progress();
                  pub.emit('tool.generating', { name, iteration: a.iteration });
                },
                alive: progress,
                usage: (t) => (reported = t),
              },
            },
            {
              env: deps.env,
              endpoints: config.providerDefaults,
              timeoutMs: (config.file.model.requestTimeoutSeconds ?? DEFAULT_REQUEST_TIMEOUT_SECONDS) * 1000,
              credentialIndex: a.credentialIndex,
            },
          ));
        forgetCall();
        if (response.runaway)
          deps.log.warn(
            { provider: ref.provider, model: ref.model, stream: response.runaway },
            'the model ran into a loop; its reply was cut as if at the output limit',
          );
      } catch (err) {
        forgetCall();
        if (sideStop.signal.aborted && !ctx.cancellationSignal.aborted) {
          // Never fail before the real cancellation (a failure is retried: a paid call repeated).
          // Heartbeats go on meanwhile: they are how the cancellation arrives.
          watch.stop();
          await cancellationOrTimeout(ctx.cancellationSignal, SIDE_STOP_GRACE_MS);
        }
        const durationMs = Date.now() - started;
        stopHeartbeat();
        watch.stop();
        endFlight();
        if (ctx.cancellationSignal.aborted) {
          measured('cancelled', durationMs, ref.model, reported, priced(reported ?? NO_TOKENS, ref.model).cost_usd);
          const turn = await recordModelCall(
            db,
            entry('cancelled', priced(reported ?? NO_TOKENS, ref.model), durationMs, ref.model),
          ).catch(() => undefined);
          pub.emit('thinking', { state: 'stopped', cancelled: true, durationMs });
          await pub.flush();
          const reason: unknown = ctx.cancellationSignal.reason;
          // The cancellation carries the turn's totals to the workflow: a stopped call is counted too.
          throw new CancelledFailure(
            reason instanceof CancelledFailure ? reason.message : 'CANCELLED',
            turn ? [attemptsDetail(turn)] : [],
          );
        }
        const failure = sideStop.signal.aborted
          ? ApplicationFailure.create({
              type: 'network',
              message: 'the request was aborted by a stop notice that no cancellation followed; the call is retried',
              nonRetryable: false,
            })
          : watch.stalled()
            ? watch.failure(attempt)
            : toModelFailure(err, {
                provider: ref,
                attempt,
                hint: staleEndpointHint(ref, config.providerDefaults),
                messageCount: messages.length,
                retry: { fallbackAvailable: a.fallbackAvailable ?? false, poolSize: ref.credentialPool?.length ?? 1 },
                backoff: {
                  baseMs: config.file.retry.baseDelaySeconds * 1000,
                  capMs: config.file.retry.maxDelaySeconds * 1000,
                  maxRetryAfterMs: config.file.retry.maxRetryAfterSeconds * 1000,
                },
              });
        const paid = priced(reported ?? NO_TOKENS, ref.model);
        measured('error', durationMs, ref.model, reported, paid.cost_usd, failure.type ?? 'unknown');
        const turn = await recordModelCall(db, {
          ...entry('error', paid, durationMs, ref.model),
          errorType: failure.type ?? 'unknown',
        }).catch(() => undefined);
        pub.emit('status', {
          kind: 'model_error',
          reason: failure.type,
          message: failure.message,
          attempt,
          willRetry: !failure.nonRetryable,
        });
        pub.emit('thinking', { state: 'stopped', failed: true, durationMs });
        await pub.flush();
        throw withAttempts(failure, turn);
      }
      // The turn's ledger totals once this call's row is in (common/attempts.ts).
      let turn: TurnAttempts | undefined;
      try {
        await deps.hooks.postLlmCall({
          ...scope,
          content: response.content,
          toolCalls: response.toolCalls.map((c) => c.function.name),
          finishReason: response.finishReason,
        });
        const usage = priced(response.tokens, response.model);
        // A kept reply made no request this attempt: its provider call was counted when it was made.
        if (!kept)
          measured(
            'ok',
            Date.now() - started,
            response.model,
            response.tokens,
            usage.cost_usd,
            undefined,
            response.finishReason,
          );
        // The call is paid for: its usage is recorded before anything else can fail.
        // A kept reply made no request: only the row its own attempt could not write is written now.
        const row = kept ? unrecorded : entry('ok', usage, Date.now() - started, response.model);
        if (row)
          await recordModelCall(db, row).then(
            (t) => {
              unrecorded = undefined;
              turn = t;
            },
            (err: unknown) => {
              unrecorded = row;
              deps.log.warn({ err: String(err) }, 'usage of a model call could not be recorded');
            },
          );
        // (A kept reply's row was written by its own attempt: the totals are read.)
        else turn = await turnAttempts(db, a.conversationId, a.turnId).catch(() => undefined);
        const enabled = mcpTools.size ? [...a.tools, ...mcpTools.keys()] : a.tools;
        const capped = capToolCalls(repairedToolNames(uniqueCallIds(response.toolCalls, a.seq), enabled));
        const toolCalls = capped.calls;
        const terminal = toolCalls.some((c) => c.function.name === 'terminal');
        // "always" approvals cover terminal commands and MCP tools that need approval.
        const mcpCall = toolCalls.some((c) => mcpTools.has(c.function.name));
        const allowlist = terminal || mcpCall ? await allowlistedRules(db) : new Set<string>();
        if (terminal) await loadCommandSafety();
        await writeMessage(db, a.sessionId, {
          seq: a.seq,
          role: 'assistant',
          content: response.content,
          toolCalls,
          reasoning: response.reasoning,
          reasoningDetails: response.reasoningDetails,
          finishReason: response.finishReason,
          turnId: a.turnId,
        });
        const durationMs = Date.now() - started;
        pub.emit('thinking', { state: 'stopped', durationMs });
        await pub.flush();
        const isFinal = toolCalls.length === 0;
        const text = isFinal ? response.content.slice(0, MAX_RESULT_TEXT) : oneLine(response.content, PREVIEW_CHARS);
        const reasoning = response.reasoning ? oneLine(response.reasoning, 2000) : null;
        const refs = toolCalls.map((c) => {
          const mcpRow = mcpTools.get(c.function.name);
          const ref = mcpRow
            ? describeMcpCall(c, mcpRow, config.file.mcp.servers[mcpRow.server], allowlist)
            : markUndoable(describeCall(deps.tools, enabled, c, allowlist), config.file.checkpoints);
          return capped.error
            ? { id: ref.id, name: ref.name, summary: ref.summary, timeoutSeconds: 30, argsError: capped.error }
            : ref;
        });
        return {
          finishReason: response.finishReason,
          toolCalls: boundCallRefs(refs, Buffer.byteLength(text) + Buffer.byteLength(reasoning ?? '') + 1000),
          text,
          textTruncated: text.length < response.content.length,
          reasoning,
          scratchpadUnterminated: hasUnterminatedScratchpad(response.content),
          usage,
          model: response.model,
          durationMs,
          ...((await mcpListChanged(deps, a.mcp)) ? { mcpChanged: true } : {}),
          ...(turn ? { turnAttempts: turn } : {}),
          ...(unrecorded ? { unledgered: true } : {}),
        };
      } catch (err) {
        // A moment's outage: the retry saves this reply, without calling the provider again.
        // Anything else would fail the same way on every retry, each one a paid call: it fails now.
        if (isTransientDbError(err)) keepReply(slotKey, response, unrecorded);
        throw withAttempts(storageFailure(err, "saving the model's reply"), turn);
      } finally {
        // (A kept reply's span was never a request: it ends here without usage.)
        endSpan({ outcome: 'ok' });
        endFlight();
        stopHeartbeat();
        watch.stop();
      }
    },
  };
}

/** A failure's (or cancellation's) detail carrying the turn's ledger totals; the workflow reads it in workflows/errors.ts. */
function attemptsDetail(turn: TurnAttempts): { turnAttempts: TurnAttempts } {
  return { turnAttempts: turn };
}

/** `failure` with the turn's totals appended to its details (the first detail stays the provider's). */
function withAttempts(failure: ApplicationFailure, turn: TurnAttempts | undefined): ApplicationFailure {
  if (!turn) return failure;
  return new ApplicationFailure(
    failure.message,
    failure.type,
    failure.nonRetryable,
    [...(failure.details ?? []), attemptsDetail(turn)],
    failure.cause,
    failure.nextRetryDelay,
    failure.category,
  );
}

/** Resolves when `signal` aborts or after `ms`, whichever is first. */
function cancellationOrTimeout(signal: AbortSignal, ms: number): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });
}

/** `<REASONING_SCRATCHPAD>` opened and never closed: the model was cut off while thinking aloud. */
export function hasUnterminatedScratchpad(text: string): boolean {
  const open = text.lastIndexOf('<REASONING_SCRATCHPAD>');
  return open >= 0 && text.indexOf('</REASONING_SCRATCHPAD>', open) < 0;
}

/** (Always set for an activity a workflow scheduled; a test's bare activity falls back to its turn.) */
function runIdOf(a: CallModelArgs, info: Pick<ActivityInfo, 'workflowExecution'>): string {
  return info.workflowExecution?.runId ?? `turn-${a.turnId}`;
}

/**
 * A retry whose call's earlier attempts already spent what was left of a session cap is not made:
 * it fails for good, with the turn's totals, and the workflow ends the turn at the cap
 * (workflows/model-slot.ts). Without the ledger (the database down) the retry goes ahead.
 */
async function refuseOverSpend(
  db: ActivityDeps['db'],
  a: CallModelArgs,
  info: Pick<ActivityInfo, 'activityId' | 'workflowExecution'>,
): Promise<void> {
  const spent = await activityAttempts(db, a.conversationId, a.turnId, runIdOf(a, info), info.activityId).catch(
    () => undefined,
  );
  const cap = spent && a.spendLimit ? capReached(spent.usage, a.spendLimit) : undefined;
  if (!cap) return;
  const turn = await turnAttempts(db, a.conversationId, a.turnId).catch(() => undefined);
  throw withAttempts(
    ApplicationFailure.create({
      type: SPEND_LIMIT_REACHED,
      message: `the session ${cap} cap is reached: the earlier attempts of this model call spent what was left, so it is not retried`,
      nonRetryable: true,
    }),
    turn,
  );
}

/** The ledger row of this HTTP attempt, keyed by the activity attempt that made it (activities/store/ledger.ts). */
function ledgerEntry(
  a: CallModelArgs,
  info: Pick<ActivityInfo, 'activityId' | 'attempt' | 'workflowExecution'>,
  outcome: LedgerOutcome,
  usage: ReturnType<typeof priceUsage>,
  durationMs: number,
  model: string,
) {
  const runId = runIdOf(a, info);
  return {
    callKey: attemptKey(runId, info.activityId, info.attempt),
    sessionId: a.sessionId,
    conversationId: a.conversationId,
    turnId: a.turnId,
    seq: a.seq,
    step: a.iteration,
    attempt: info.attempt,
    workflowRunId: runId,
    activityId: info.activityId,
    provider: a.provider.provider,
    model,
    apiMode: a.provider.apiMode,
    outcome,
    usage,
    durationMs,
  };
}

/** System prompt + repaired transcript + request-only notes (steer is stored; budget notes are not). */
async function buildMessages(deps: ActivityDeps, a: CallModelArgs): Promise<ChatMessage[]> {
  const { db } = deps;
  // Both fixed for the session's life: read once per worker (store/sessions.ts), not per call.
  const { systemPrompt, nonce } = await sessionPrompt(db, a.sessionId);
  let transcript = await loadTranscript(db, a.sessionId, a.seq);
  const lastTool = [...transcript].reverse().find((m) => m.role === 'tool');
  if (a.steer && lastTool && transcript[transcript.length - 1]?.role === 'tool') {
    await appendToContent(db, a.sessionId, lastTool.seq, steerNote(nonce, a.steer));
    transcript = await loadTranscript(db, a.sessionId, a.seq);
  }
  const messages = repairMessageOrder([
    { role: 'system', content: systemPrompt },
    ...transcript.map((m) => (a.stripReasoning ? withoutReasoningDetails(stripSeq(m)) : stripSeq(m))),
  ]);
  // A tool-less request sees this step's tool calls as one digest (activities/model/paused-digest.ts).
  if (a.toolChoiceNone) return withToolDigest(messages, nonce, a.ephemeralNote);
  return appendNote(messages, nonce, a.ephemeralNote);
}

function withoutReasoningDetails(m: ChatMessage): ChatMessage {
  const { reasoning_details: _details, ...rest } = m;
  return rest;
}

function stripSeq(m: ChatMessage & { seq?: number }): ChatMessage {
  const { seq: _seq, ...rest } = m;
  return rest;
}

/**
 * Names with leaked template markup (`terminal" parameter="command"`) become the tool they name,
 * in the stored transcript too, so the call runs and its result pairs with a real tool.
 */
export function repairedToolNames(calls: ToolCall[], enabled: readonly string[]): ToolCall[] {
  return calls.map((c) => {
    const name = repairToolName(c.function.name, enabled);
    return name && name !== c.function.name ? { ...c, function: { ...c.function, name } } : c;
  });
}

/** Providers sometimes omit or repeat call ids; the transcript needs unique ones. */
function uniqueCallIds(calls: ToolCall[], seq: number): ToolCall[] {
  const seen = new Set<string>();
  return calls.map((c, i) => {
    let id = c.id || `call_${seq}_${i}`;
    if (seen.has(id)) id = `${id}_${i}`;
    seen.add(id);
    return { ...c, id };
  });
}

/** The small record the workflow gets for each call: enough to plan and label, no arguments. */
export function describeCall(
  registry: ToolRegistry,
  enabled: readonly string[],
  call: ToolCall,
  allowlist: ReadonlySet<string> = new Set(),
): ToolCallRef {
  const name = call.function.name;
  const tool = enabled.includes(name) ? registry.get(name) : undefined;
  if (!tool) {
    const suggestion = closestName(name, enabled);
    return {
      id: call.id,
      name,
      summary: `${name || '(no name)'} (unknown tool)`,
      timeoutSeconds: 30,
      unknownTool: true,
      argsError:
        `Tool '${name}' does not exist.${suggestion ? ` Did you mean '${suggestion}'?` : ''} ` +
        `Available tools: ${enabled.join(', ') || '(none)'}.`,
    };
  }
  const parsed = parseToolArgs(tool, call.function.arguments);
  if (!parsed.ok)
    return {
      id: call.id,
      name,
      summary: `${name} (invalid arguments)`,
      timeoutSeconds: 30,
      traits: tool.traits,
      argsError: parsed.error,
      ...(parsed.invalidJson ? { invalidJson: true } : {}),
    };
  const ref: ToolCallRef = {
    id: call.id,
    name,
    summary: oneLine(tool.summarize?.(parsed.args) ?? name, 120),
    timeoutSeconds: tool.timeoutSeconds?.(parsed.args) ?? DEFAULT_TOOL_TIMEOUT_SECONDS,
    traits: tool.traits,
    // The loop guard compares calls by this key: the same arguments in any key order are the same call.
    argsKey: shortHash(canonicalJson(parsed.args)),
  };
  const paths = tool.paths?.(parsed.args);
  if (paths?.length) ref.paths = paths;
  const args = parsed.args as Record<string, unknown>;
  if (name === 'terminal' && typeof args.command === 'string') {
    const check = checkCommand(args.command, allowlist);
    if (check) ref.approval = check;
  }
  if (name === 'todo') {
    ref.todo = {
      merge: args.merge === true,
      ...(Array.isArray(args.todos) ? { todos: args.todos as TodoItem[] } : {}),
    };
  }
  if (name === DELEGATE_TOOL) {
    const a = parsed.args as DelegateArgs;
    const tasks = a.tasks ?? [{ goal: a.goal ?? '', context: a.context, toolsets: a.toolsets }];
    ref.delegate = {
      tasks: tasks.map((t) => ({
        goal: t.goal,
        ...(t.context ? { context: t.context } : {}),
        ...(t.toolsets?.length ? { tools: t.toolsets } : {}),
      })),
    };
  }
  if (name === 'clarify' && typeof args.question === 'string') {
    ref.clarify = {
      question: args.question,
      choices: Array.isArray(args.choices) ? args.choices.filter((c): c is string => typeof c === 'string') : [],
    };
  }
  return ref;
}
