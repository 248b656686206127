import { trace } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';

/**
 * The tracing this process installed (core/tracing.ts), if any. Only the OpenTelemetry API is
 * loaded here, never the SDK: with tracing off, whoever asks gets undefined and adds nothing.
 */
export interface Tracing {
  /** Where finished spans go; the Temporal worker's workflow spans are handed to it too. */
  spanProcessor: SpanProcessor;
  resource: Resource;
  /** Exports the spans still buffered, then stops. */
  shutdown(): Promise<void>;
}

let installed: Tracing | undefined;

export const installedTracing = (): Tracing | undefined => installed;

export function setInstalledTracing(tracing: Tracing | undefined): void {
  installed = tracing;
}

/** The active span's trace and span id, for a log line; empty outside any span. */
export function traceFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}
