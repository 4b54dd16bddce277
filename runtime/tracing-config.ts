/**
 * Whether OpenTelemetry tracing is on: off unless the standard `OTEL_*` variables ask for it
 * (an OTLP endpoint, or `OTEL_TRACES_EXPORTER` naming an exporter), and `OTEL_SDK_DISABLED=true`
 * always wins. Kept apart from runtime/tracing.ts so the banner can say it without loading the SDK.
 */
export function tracingWanted(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (exporter === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || exporter);
}
