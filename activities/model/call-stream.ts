/**
 * The middle of a model call: the request itself, streamed, under its watchdogs — the stall watch
 * (activities/model/stall-watch.ts), the activity's cancellation, and the stop notice that aborts
 * a request before the cancellation arrives (activities/events/stop-notices.ts). Deltas go to the
 * event publisher as they arrive; every byte is progress and a heartbeat. The outcome says how the
 * attempt ended, with what the provider reported it used so far (a failed attempt is paid for too).
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { Context } from '@temporalio/activity';
import type { CallModelArgs } from '../../common/activity-types.js';
import { isLocalProvider } from '../../common/providers.js';
import type { ActivityDeps } from '../deps.js';
import type { EventPublisher } from '../events/publisher.js';
import type { CallMeter } from './call-meter.js';
import type { PreparedCall } from './call-prepare.js';
import { DEFAULT_REQUEST_TIMEOUT_SECONDS, dispatchModelCall } from '../../model-adapters/dispatch.js';
import { toModelFailure } from './failures.js';
import { staleEndpointHint } from './stale-endpoint.js';
import { DEFAULT_STREAM_STALL_SECONDS, watchStall } from './stall-watch.js';
import type { StallWatch } from './stall-watch.js';
import type { ModelResponse, StreamSink, TokenCounts } from '../../model-adapters/types.js';

/**
 * How long a call aborted by a stop notice waits for Temporal's cancellation. The notice is sent
 * right after the `stop` signal was accepted, so the cancellation follows within a heartbeat or
 * two; a notice with none after it (a stop while idle that met a new turn, a forged notice) must
 * not end the call, so after this long it fails as a retryable `network` failure: the activity's
 * retry makes the request again.
 */
export const SIDE_STOP_GRACE_MS = 10_000;

/**
 * A local server on a CPU sends nothing while it evaluates the prompt (llama.cpp took minutes for
 * a 2K-token prompt on a busy 2-core machine), so its silence is allowed to last longer.
 */
const LOCAL_STREAM_STALL_SECONDS = 600;

/** How long a provider's stream may send nothing: its own setting, the model section's, or the default. */
export function stallSecondsFor(file: ActivityDeps['config']['file'], provider: string): number {
  const own = (file.providers as Record<string, { streamStallSeconds?: number } | undefined>)[provider];
  const fallback = isLocalProvider(provider) ? LOCAL_STREAM_STALL_SECONDS : DEFAULT_STREAM_STALL_SECONDS;
  return own?.streamStallSeconds ?? file.model.streamStallSeconds ?? fallback;
}

export type StreamOutcome =
  | { kind: 'reply'; response: ModelResponse }
  /** The activity was cancelled (a stop): the attempt ends as cancelled. */
  | { kind: 'cancelled'; reported: TokenCounts | undefined }
  | { kind: 'failed'; failure: ApplicationFailure; reported: TokenCounts | undefined };

export interface StreamContext {
  ctx: Context;
  pub: EventPublisher;
  meter: CallMeter;
}

export async function streamReply(
  deps: ActivityDeps,
  a: CallModelArgs,
  prepared: PreparedCall,
  { ctx, pub, meter }: StreamContext,
): Promise<StreamOutcome> {
  const { config } = deps;
  const { ref } = prepared;
  const attempt = ctx.info.attempt;
  const watch = watchStall(ctx.cancellationSignal, stallSecondsFor(config.file, ref.provider) * 1000);
  const sideStop = new AbortController();
  const forgetCall = deps.stops?.register(a.conversationId, a.turnId, sideStop) ?? (() => {});
  // What the provider said this attempt used so far.
  let reported: TokenCounts | undefined;
  const progress = () => {
    watch.progress();
    ctx.heartbeat({ phase: 'model', attempt, lastProgressAt: watch.lastProgressAt() });
  };
  try {
    const response = await dispatchModelCall(
      ref,
      prepared.request,
      {
        signal: AbortSignal.any([watch.signal, sideStop.signal]),
        sink: streamSink(pub, meter, progress, a.iteration, (t) => (reported = t)),
      },
      {
        env: deps.env,
        endpoints: config.providerDefaults,
        timeoutMs: (config.file.model.requestTimeoutSeconds ?? DEFAULT_REQUEST_TIMEOUT_SECONDS) * 1000,
        credentialIndex: a.credentialIndex,
      },
    );
    if (response.runaway)
      deps.log.warn(
        { provider: ref.provider, model: ref.model, stream: response.runaway },
        'the model ran into a loop; its reply was cut as if at the output limit',
      );
    return { kind: 'reply', response };
  } catch (err) {
    if (sideStop.signal.aborted && !ctx.cancellationSignal.aborted) {
      // Never fail before the real cancellation (a failure is retried: a paid call repeated).
      // Heartbeats go on meanwhile: they are how the cancellation arrives.
      watch.stop();
      await cancellationOrTimeout(ctx.cancellationSignal, SIDE_STOP_GRACE_MS);
    }
    if (ctx.cancellationSignal.aborted) return { kind: 'cancelled', reported };
    return { kind: 'failed', failure: classify(deps, a, prepared, err, watch, sideStop.signal, attempt), reported };
  } finally {
    forgetCall();
    watch.stop();
  }
}

/** Where the stream's deltas go: first output measured, progress noted, events published. */
function streamSink(
  pub: EventPublisher,
  meter: CallMeter,
  progress: () => void,
  iteration: number,
  usage: (t: TokenCounts) => void,
): StreamSink {
  const output = () => {
    meter.firstOutput();
    progress();
  };
  return {
    text: (d) => {
      output();
      pub.textDelta(d);
    },
    reasoning: (d) => {
      output();
      pub.reasoningDelta(d);
    },
    toolGenerating: (name) => {
      output();
      pub.emit('tool.generating', { name, iteration });
    },
    alive: progress,
    usage,
  };
}

/** Why the request failed: a stop notice no cancellation followed, a stall, or the provider's error. */
function classify(
  deps: ActivityDeps,
  a: CallModelArgs,
  prepared: PreparedCall,
  err: unknown,
  watch: StallWatch,
  sideStop: AbortSignal,
  attempt: number,
): ApplicationFailure {
  const { config } = deps;
  const { ref } = prepared;
  if (sideStop.aborted)
    return ApplicationFailure.create({
      type: 'network',
      message: 'the request was aborted by a stop notice that no cancellation followed; the call is retried',
      nonRetryable: false,
    });
  if (watch.stalled()) return watch.failure(attempt);
  return toModelFailure(err, {
    provider: ref,
    attempt,
    hint: staleEndpointHint(ref, config.providerDefaults),
    messageCount: prepared.request.messages.length,
    retry: { fallbackAvailable: a.fallbackAvailable ?? false, poolSize: ref.credentialPool?.length ?? 1 },
    backoff: {
      baseMs: config.file.retry.baseDelaySeconds * 1000,
      capMs: config.file.retry.maxDelaySeconds * 1000,
      maxRetryAfterMs: config.file.retry.maxRetryAfterSeconds * 1000,
    },
  });
}

/** Resolves when `signal` aborts or after `ms`, whichever is first. */
export function cancellationOrTimeout(signal: AbortSignal, ms: number): Promise<void> {
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
