import type { Span } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';

/**
 * The tracing this process installed (core/tracing.ts), if any. Nothing of OpenTelemetry is
 * loaded here, not even its API: with tracing off, whoever asks gets undefined and adds nothing.
 */
export interface Tracing {
  /** Where finished spans go; the Temporal worker's workflow spans are handed to it too. */
  spanProcessor: SpanProcessor;
  resource: Resource;
  /** The span of the code running now (the context follows async calls), if any. */
  activeSpan(): Span | undefined;
  /** Exports the spans still buffered, then stops. */
  shutdown(): Promise<void>;
}

let installed: Tracing | undefined;

export const installedTracing = (): Tracing | undefined => installed;

export function setInstalledTracing(tracing: Tracing | undefined): void {
  installed = tracing;
}

/**
 * With tracing on, a pino mixin giving each log line written inside a span that span's
 * `trace_id` and `span_id`; undefined with tracing off.
 */
export function traceLogFields(): (() => { trace_id?: string; span_id?: string }) | undefined {
  const tracing = installed;
  if (!tracing) return undefined;
  return () => {
    const span = tracing.activeSpan();
    if (!span) return {};
    const { traceId, spanId } = span.spanContext();
    return { trace_id: traceId, span_id: spanId };
  };
}
