/**
 * The OpenTelemetry SDK for a Herald process (worker or CLI): off unless the standard `OTEL_*`
 * variables ask for it (runtime/tracing-config.ts). Spans go out over OTLP (http/protobuf, the
 * exporter reads `OTEL_EXPORTER_OTLP_ENDPOINT`, `…_TRACES_ENDPOINT`, `…_HEADERS`, `…_TIMEOUT`
 * itself), or to the console with `OTEL_TRACES_EXPORTER=console`; the resource takes
 * `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES`. The provider is registered globally once per
 * process, so the Temporal interceptors, Herald's own activity spans and a client in the same
 * process all share it.
 *
 * The pieces used are the SDK's own (NodeTracerProvider, BatchSpanProcessor, the OTLP exporter)
 * rather than `@opentelemetry/sdk-node`, which would also start metrics and logs pipelines and
 * auto-instrumentation Herald does not want; the 1.x line matches what
 * `@temporalio/interceptors-opentelemetry` 1.24 is built on.
 */
import type { Resource } from '@opentelemetry/resources';
import { Resource as ResourceClass, detectResourcesSync, envDetectorSync } from '@opentelemetry/resources';
import type { SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { BatchSpanProcessor, ConsoleSpanExporter } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { tracingWanted } from './tracing-config.js';

export interface Tracing {
  resource: Resource;
  /** Where every span of this process ends (the workflow sink exporter hands spans to it too). */
  spanProcessor: SpanProcessor;
  /** Flush what is buffered and stop. */
  shutdown(): Promise<void>;
}

export interface TracingOptions {
  env?: NodeJS.ProcessEnv;
  /** `service.name` unless OTEL_SERVICE_NAME says otherwise. */
  serviceName?: string;
  /** Use this processor (tests: an in-memory exporter) instead of the one the environment names; forces tracing on. */
  spanProcessor?: SpanProcessor;
}

let installed: Tracing | undefined;

function exporterFor(env: NodeJS.ProcessEnv): SpanExporter {
  const kind = env.OTEL_TRACES_EXPORTER?.split(',')[0]?.trim().toLowerCase() || 'otlp';
  if (kind === 'console') return new ConsoleSpanExporter();
  if (kind !== 'otlp') throw new Error(`OTEL_TRACES_EXPORTER=${kind} is not supported (otlp, console or none)`);
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL;
  if (protocol && protocol !== 'http/protobuf')
    throw new Error(`OTLP protocol ${protocol} is not supported: Herald sends http/protobuf (port 4318)`);
  return new OTLPTraceExporter();
}

/**
 * Start tracing for this process, or answer the tracing already started; undefined when the
 * environment does not ask for it (then every span Herald makes is the API's no-op).
 */
export function startTracing(o: TracingOptions = {}): Tracing | undefined {
  if (installed) return installed;
  const env = o.env ?? process.env;
  if (!o.spanProcessor && !tracingWanted(env)) return undefined;
  const resource = ResourceClass.default()
    .merge(new ResourceClass({ 'service.name': o.serviceName ?? 'herald' }))
    .merge(detectResourcesSync({ detectors: [envDetectorSync] }));
  const spanProcessor = o.spanProcessor ?? new BatchSpanProcessor(exporterFor(env));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  provider.register();
  installed = {
    resource,
    spanProcessor,
    async shutdown() {
      await provider.forceFlush().catch(() => {});
      await provider.shutdown().catch(() => {});
      installed = undefined;
    },
  };
  return installed;
}

/** The tracing this process started, if any. */
export function activeTracing(): Tracing | undefined {
  return installed;
}
