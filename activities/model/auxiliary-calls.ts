/**
 * The auxiliary model's requests (compression summaries, `smart` approval assessments) are paid
 * for like the agent loop's, so they are accounted like them (docs/cli.md): each HTTP attempt writes a
 * usage-ledger row whatever its outcome, with the usage the provider reported and a `purpose`; the
 * session caps stop them; and the activity reports the totals for the workflow to count
 * (workflows/attempts.ts `countAuxiliary`).
 *
 * A row's key is the activity attempt's (store/ledger.ts) plus the request's number within
 * the attempt (one attempt may ask the auxiliary model, then the main one, and an engine may ask more
 * than once): retries and fallbacks never collide, and a re-delivered attempt makes its requests in
 * the same order, so it writes the same keys.
 */
import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import type { Info as ActivityInfo } from '@temporalio/activity';
import type { AuxiliaryReport } from '../../common/activity-types.js';
import type { SpendLimit, TurnAttempts } from '../../common/attempts.js';
import { addAttempts, capReached } from '../../common/attempts.js';
import { pricingFor, priceUsage } from '../../shared/pricing.js';
import type { ProviderRef } from '../../common/providers.js';
import { temperatureFor } from '../../shared/temperature.js';
import type { ActivityDeps } from '../deps.js';
import type { Usage } from '../../common/messages.js';
import type { CallPurpose, LedgerEntry, LedgerOutcome } from '../../store/ledger.js';
import { activityAttempts, attemptKey, recordModelCall, startModelCall, turnAttempts } from '../../store/ledger.js';
import { requestBytes } from './call-ledger.js';
import { DEFAULT_REQUEST_TIMEOUT_SECONDS, dispatchModelCall, silentSink } from '../../model-adapters/dispatch.js';
import { toModelFailure } from './failures.js';
import type { ModelRequest, ModelResponse, TokenCounts } from '../../model-adapters/types.js';

const NO_TOKENS: TokenCounts = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 };

/** Where an auxiliary activity's requests belong: absent ids (a workflow from before they were passed) write no rows. */
export interface AuxiliaryScope {
  conversationId?: string | undefined;
  sessionId?: string | undefined;
  turnId?: string | undefined;
  /** The transcript position the request was about (a compression's first compressed-away message, an approval's call). */
  seq?: number | undefined;
  purpose: Exclude<CallPurpose, 'turn'>;
  /** What was left of the session caps when the workflow scheduled the activity. */
  spendLimit?: SpendLimit | undefined;
}

/** A request not made because the session cap is reached: callers treat it like any failed request. */
export class SpendLimitReached extends Error {
  constructor(cap: 'cost' | 'token') {
    super(`the session ${cap} cap is reached: no more auxiliary model requests`);
    this.name = 'SpendLimitReached';
  }
}

export class AuxiliaryCalls {
  private readonly info: Pick<ActivityInfo, 'activityId' | 'attempt' | 'workflowExecution'>;
  /** Requests this attempt made so far (the next one's number is this plus one). */
  private made = 0;
  /** What this activity's earlier attempts and this attempt's requests spent: read once, then added to. */
  private spent: TurnAttempts | undefined;

  constructor(
    private readonly deps: ActivityDeps,
    private readonly scope: AuxiliaryScope,
  ) {
    this.info = Context.current().info;
  }

  private get ledgered(): boolean {
    return (
      this.scope.conversationId !== undefined && this.scope.turnId !== undefined && this.scope.sessionId !== undefined
    );
  }

  private get runId(): string {
    return this.info.workflowExecution?.runId ?? `turn-${this.scope.turnId ?? ''}`;
  }

  /** This activity's requests so far, every attempt of it (undefined without the ledger). */
  private async ownTotals(): Promise<TurnAttempts | undefined> {
    if (!this.ledgered) return undefined;
    return await activityAttempts(
      this.deps.db,
      this.scope.conversationId!,
      this.scope.turnId!,
      this.runId,
      this.info.activityId,
    ).catch(() => undefined);
  }

  /** Refuse a request once this activity's own requests spent what was left of a session cap. */
  private async checkSpend(): Promise<void> {
    const limit = this.scope.spendLimit;
    if (!limit) return;
    // An earlier attempt of this activity may have spent some already: read once per attempt.
    if (!this.spent) this.spent = this.info.attempt > 1 ? await this.ownTotals() : undefined;
    const cap = this.spent ? capReached(this.spent.usage, limit) : undefined;
    if (cap) throw new SpendLimitReached(cap);
  }

  /** One request to `ref`: its ledger row is written whatever the outcome; the error is rethrown. */
  async call(ref: ProviderRef, request: ModelRequest, signal: AbortSignal, alive: () => void): Promise<ModelResponse> {
    await this.checkSpend();
    this.made += 1;
    const n = this.made;
    const started = Date.now();
    let reported: TokenCounts | undefined;
    const { config } = this.deps;
    const sent = { ...request, temperature: request.temperature ?? temperatureFor(config.file, ref) };
    // On the ledger before it is sent (a request whose worker dies is still counted); no row, no request.
    if (this.ledgered)
      await startModelCall(this.deps.db, {
        ...this.entry(ref, n, 'started', priceUsage(NO_TOKENS, undefined), ref.model, started),
        requestBytes: requestBytes(sent),
      });
    try {
      const r = await dispatchModelCall(
        ref,
        sent,
        { signal, sink: { ...silentSink(alive), usage: (t) => (reported = t) } },
        {
          env: this.deps.env,
          endpoints: config.providerDefaults,
          timeoutMs: (config.file.model.requestTimeoutSeconds ?? DEFAULT_REQUEST_TIMEOUT_SECONDS) * 1000,
        },
      );
      await this.record(ref, n, 'ok', r.tokens, r.model, started);
      return r;
    } catch (err) {
      const cancelled = signal.aborted;
      const errorType = cancelled
        ? undefined
        : (toModelFailure(err, { provider: ref, attempt: this.info.attempt }).type ?? 'unknown');
      await this.record(
        ref,
        n,
        cancelled ? 'cancelled' : 'error',
        reported ?? NO_TOKENS,
        ref.model,
        started,
        errorType,
      );
      throw err;
    }
  }

  private async record(
    ref: ProviderRef,
    n: number,
    outcome: LedgerOutcome,
    tokens: TokenCounts,
    model: string,
    started: number,
    errorType?: string,
  ): Promise<void> {
    const usage = priceUsage(tokens, pricingFor(this.deps.config.file, ref.provider, ref.model, model));
    if (this.spent) this.spent = addAttempts(this.spent, { attempts: 0, usage });
    else this.spent = { attempts: 0, usage };
    if (!this.ledgered) return;
    const s = this.scope;
    await recordModelCall(this.deps.db, {
      ...this.entry(ref, n, outcome, usage, model, started),
      ...(errorType ? { errorType } : {}),
    }).catch((err: unknown) => {
      // (Paid but its row stays `started`, and becomes `lost`: the database is likely down, and
      // the activity's own writes fail and are retried too.)
      this.deps.log.warn(
        { err: String(err), purpose: s.purpose },
        'usage of an auxiliary model call could not be recorded',
      );
    });
  }

  /** The ledger row of this attempt's request number `n`. */
  private entry(
    ref: ProviderRef,
    n: number,
    outcome: LedgerOutcome,
    usage: Usage,
    model: string,
    started: number,
  ): LedgerEntry {
    const s = this.scope;
    return {
      callKey: `${attemptKey(this.runId, this.info.activityId, this.info.attempt)}:${n}`,
      sessionId: s.sessionId!,
      conversationId: s.conversationId!,
      turnId: s.turnId!,
      seq: s.seq ?? 0,
      step: null,
      purpose: s.purpose,
      attempt: this.info.attempt,
      workflowRunId: this.runId,
      activityId: this.info.activityId,
      provider: ref.provider,
      model,
      apiMode: ref.apiMode,
      outcome,
      usage,
      durationMs: Date.now() - started,
    };
  }

  /**
   * What the workflow counts (common/activity-types.ts AuxiliaryReport): the turn's totals and this
   * activity's own, both from the ledger. Empty when no request was made in any attempt.
   */
  async report(): Promise<AuxiliaryReport> {
    // (No request in this attempt nor, on a first attempt, before it: nothing to read.)
    if (!this.ledgered || (this.made === 0 && this.info.attempt === 1)) return {};
    const own = await this.ownTotals();
    if (!own) return {};
    const turn = await turnAttempts(this.deps.db, this.scope.conversationId!, this.scope.turnId!).catch(
      () => undefined,
    );
    return { auxAttempts: own, ...(turn ? { turnAttempts: turn } : {}) };
  }
}

const holds = (r: AuxiliaryReport) => r.auxAttempts !== undefined || r.turnAttempts !== undefined;

/**
 * `err` carrying `report` for the workflow (appended to its details, which Temporal carries to the
 * workflow, a cancellation's too). A cancelled activity throws a `CancelledFailure` so that it ends
 * cancelled; another error becomes an `ApplicationFailure` with the same message and type.
 */
export function withReport(err: unknown, report: AuxiliaryReport, cancellation?: AbortSignal): unknown {
  if (!holds(report)) return err;
  if (cancellation?.aborted) {
    const reason: unknown = cancellation.reason;
    return new CancelledFailure(reason instanceof CancelledFailure ? reason.message : 'CANCELLED', [report]);
  }
  if (err instanceof CancelledFailure) return new CancelledFailure(err.message, [...err.details, report], err.cause);
  if (err instanceof ApplicationFailure)
    return new ApplicationFailure(
      err.message,
      err.type,
      err.nonRetryable,
      [...(err.details ?? []), report],
      err.cause,
      err.nextRetryDelay,
      err.category,
    );
  return ApplicationFailure.fromError(err, { details: [report] });
}
