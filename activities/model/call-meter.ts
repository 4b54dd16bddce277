/**
 * One model-call attempt as metrics and a trace span see it: in flight from the request, time to
 * first output measured from the request, and one measurement when the attempt ends (labels are
 * bounded in activities/metrics.ts). A kept reply made no request: its meter ends without one.
 */
import type { ProviderRef } from '../../common/providers.js';
import type { HeraldMetrics, ModelOutcome } from '../metrics.js';
import { startModelSpan } from '../tracing.js';
import type { TokenCounts } from '../../model-adapters/types.js';

export interface AttemptMeasure {
  outcome: ModelOutcome;
  durationMs: number;
  model: string;
  tokens?: TokenCounts | undefined;
  costUsd?: number | undefined;
  reason?: string | undefined;
  finishReason?: string | undefined;
}

export interface CallMeter {
  /** Output (text, reasoning or a tool call) arrived; only the first counts. */
  firstOutput(): void;
  /** The attempt's request ended this way. */
  measure(m: AttemptMeasure): void;
  /** No longer in flight; the span ends if `measure` did not end it. Idempotent. */
  end(): void;
}

export function startCallMeter(
  metrics: HeraldMetrics,
  ref: ProviderRef,
  attempt: number,
  maxOutputTokens: number | undefined,
  now: () => number = Date.now,
): CallMeter {
  const requestAt = now();
  const endSpan = startModelSpan({
    provider: ref.provider,
    apiMode: ref.apiMode,
    model: ref.model,
    attempt,
    maxOutputTokens,
  });
  const endFlight = metrics.modelStarted();
  let firstOutputAt: number | undefined;
  let inFlight = true;
  return {
    firstOutput: () => {
      firstOutputAt ??= now();
    },
    measure: (m) => {
      const firstTokenMs = firstOutputAt === undefined ? undefined : firstOutputAt - requestAt;
      endSpan({
        outcome: m.outcome,
        model: m.model,
        tokens: m.tokens,
        finishReason: m.finishReason,
        reason: m.reason,
        costUsd: m.costUsd,
        firstTokenMs,
      });
      metrics.modelAttempt({
        provider: ref.provider,
        model: m.model,
        outcome: m.outcome,
        reason: m.reason,
        attempt,
        durationMs: m.durationMs,
        firstTokenMs,
        tokens: m.tokens,
        costUsd: m.costUsd,
      });
    },
    end: () => {
      endSpan({ outcome: 'ok' });
      if (inFlight) endFlight();
      inFlight = false;
    },
  };
}
