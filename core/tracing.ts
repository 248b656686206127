import { createRequire } from 'node:module';
import { trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { Resource } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  SimpleSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { installedTracing, setInstalledTracing, type Tracing } from './trace-context.ts';

/** Requests that are not worth a trace: probes and scrapes, many a minute. */
const untracedPaths = [/^\/api\/health\//, /^\/metrics$/];

export type TracingTarget =
  /** OTLP over HTTP (`OTEL_EXPORTER_OTLP_ENDPOINT`), spans sent in batches. */
  | { endpoint: string }
  /** A test's exporter, given each span as it ends. */
  | { exporter: SpanExporter };

/**
 * Installs OpenTelemetry in this process: the tracer provider (W3C trace context, async-local
 * context), and the instrumentations of node's http (the Koa server's requests, Stripe's and
 * the webhook deliveries' calls) and of pg (every SQL statement inside a traced request or
 * activity). Koa itself is traced by api/middleware/tracing.ts: @opentelemetry/instrumentation-koa
 * 0.47 patches Koa 2 only.
 *
 * Why no loader hook (`--import` with @opentelemetry/instrumentation/hook.mjs): what these
 * instrumentations patch are objects every importer shares, however it imports them —
 * `http.Server.prototype.emit` and the `request` of node's http module (Stripe's SDK reads it
 * at each call), and pg's `Client.prototype`, patched when pg/lib/index.js requires
 * pg/lib/client.js, which is a CommonJS require(), so require-in-the-middle sees it for every
 * copy of pg (MikroORM has one of its own). That holds as long as this runs before pg is first
 * evaluated: core/start-tracing.ts is the first import of each entry point; tests call this
 * before importing the API.
 */
export function startTracing(serviceName: string, target: TracingTarget): Tracing {
  const running = installedTracing();
  if (running) return running;
  const resource = new Resource({ [ATTR_SERVICE_NAME]: serviceName });
  const spanProcessor =
    'endpoint' in target
      ? new BatchSpanProcessor(new OTLPTraceExporter({ url: tracesUrl(target.endpoint) }))
      : new SimpleSpanProcessor(target.exporter);
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  provider.register();
  const disableInstrumentations = registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) =>
          untracedPaths.some((path) => path.test(request.url?.split('?', 1)[0] ?? '')),
        // A call outside any trace (a poll, a health check) would start a trace of one span.
        requireParentforOutgoingSpans: true,
      }),
      new PgInstrumentation({ requireParentSpan: true }),
    ],
  });
  // node:http is a built-in that ES modules import without require(): require it once, so
  // that the http instrumentation patches it now.
  const require = createRequire(import.meta.url);
  require('node:http');
  require('node:https');
  const tracing: Tracing = {
    spanProcessor,
    resource,
    activeSpan: () => trace.getActiveSpan(),
    async shutdown() {
      disableInstrumentations();
      await provider.shutdown();
      setInstalledTracing(undefined);
    },
  };
  setInstalledTracing(tracing);
  return tracing;
}

/** The OTLP/HTTP traces URL of a collector's base URL, as the OpenTelemetry spec builds it. */
function tracesUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, '')}/v1/traces`;
}
