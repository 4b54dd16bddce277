/**
 * The OpenTelemetry plumbing workflows/tracing.ts needs inside the workflow sandbox, on public APIs
 * only: `@temporalio/interceptors-opentelemetry`'s documented workflow entry (`lib/workflow`, which
 * also sets the globals OpenTelemetry reads there) exports its finished interceptors and the sink
 * types, not its context manager, exporter or header helpers, so those three are here. They speak
 * the package's formats — the `_tracer-data` header its client and activity interceptors read and
 * write, the `exporter` sink its worker side turns back into spans — so Herald's workflow spans join
 * the same traces. Loaded only by a tracing worker, like tracing.ts.
 */
import '@temporalio/interceptors-opentelemetry/lib/workflow/index.js';
import * as otel from '@opentelemetry/api';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import type {
  OpenTelemetrySinks,
  SerializableSpan,
} from '@temporalio/interceptors-opentelemetry/lib/workflow/index.js';
import type { Headers } from '@temporalio/workflow';
import { AsyncLocalStorage, defaultPayloadConverter, proxySinks } from '@temporalio/workflow';

/** The header the package's interceptors carry the trace context in. */
const TRACE_HEADER = '_tracer-data';

/** The trace context `headers` carry, if any. */
export function extractContextFromHeaders(headers: Headers): otel.Context | undefined {
  const encoded = headers[TRACE_HEADER];
  if (encoded === undefined) return undefined;
  const carrier = defaultPayloadConverter.fromPayload<Record<string, string>>(encoded);
  return otel.propagation.extract(otel.context.active(), carrier, otel.defaultTextMapGetter);
}

/** `headers` with the active trace context added. */
export function headersWithContext(headers: Headers): Headers {
  const carrier: Record<string, string> = {};
  otel.propagation.inject(otel.context.active(), carrier, otel.defaultTextMapSetter);
  return { ...headers, [TRACE_HEADER]: defaultPayloadConverter.toPayload(carrier) };
}

/** The active context, kept in the sandbox's AsyncLocalStorage (which follows workflow promises). */
export class SandboxContextManager implements otel.ContextManager {
  private readonly storage = new AsyncLocalStorage<otel.Context>();
  active(): otel.Context {
    return this.storage.getStore() ?? otel.ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: otel.Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    const cb = thisArg == null ? fn : (fn.bind(thisArg) as F);
    return this.storage.run(context, cb, ...args);
  }
  bind<T>(context: otel.Context, target: T): T {
    if (typeof target !== 'function') throw new TypeError(`only functions can be bound, not ${typeof target}`);
    const fn = target as unknown as (...args: unknown[]) => unknown;
    return ((...args: unknown[]) => this.with(context, () => fn(...args))) as T;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.storage.disable();
    return this;
  }
}

/** Ended spans, handed to the worker through the `exporter` sink (not called during replay). */
export class SinkSpanExporter implements SpanExporter {
  private sink: OpenTelemetrySinks['exporter'] | undefined;
  export(spans: ReadableSpan[], resultCallback: Parameters<SpanExporter['export']>[1]): void {
    this.sink ??= proxySinks<OpenTelemetrySinks>().exporter;
    this.sink.export(spans.map(serializable));
    resultCallback({ code: 0 }); // ExportResultCode.SUCCESS
  }
  async shutdown(): Promise<void> {}
}

/** A span as plain data (a TraceState object would lose its methods crossing out of the sandbox). */
function serializable(span: ReadableSpan): SerializableSpan {
  const { traceState, ...context } = span.spanContext();
  return {
    name: span.name,
    kind: span.kind,
    spanContext: { ...context, ...(traceState ? { traceState: traceState.serialize() } : {}) },
    ...(span.parentSpanId !== undefined ? { parentSpanId: span.parentSpanId } : {}),
    startTime: span.startTime,
    endTime: span.endTime,
    status: span.status,
    attributes: span.attributes,
    links: span.links,
    events: span.events,
    duration: span.duration,
    ended: span.ended,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
    instrumentationLibrary: span.instrumentationLibrary,
  };
}
