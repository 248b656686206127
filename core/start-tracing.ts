/**
 * Imported first by the entry points (api/server.ts, temporal/worker.ts) for its effect: when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set and this process runs one of them, tracing starts before
 * any other module of the process is evaluated (see core/tracing.ts for why that order matters,
 * and why no `--import` flag is needed). Each copy of a process pool runs its entry point again,
 * so each starts its own. Unset, nothing of the OpenTelemetry SDK is loaded.
 *
 * Synchronous on purpose: modules imported after this one are evaluated without waiting for a
 * top-level await here, so the SDK is loaded with require() (node loads ES modules that way too).
 */
import { createRequire } from 'node:module';
import { relative } from 'node:path';
import { parseEnvironment, projectRoot } from '../config/env.ts';

/** The service name of each process that traces, by its entry point. */
const tracedEntryPoints: Record<string, string> = {
  'api/server.ts': 'tollgate-api',
  'temporal/worker.ts': 'tollgate-worker',
};

const entryPoint = process.argv[1] ? relative(projectRoot, process.argv[1]) : '';
const serviceName = tracedEntryPoints[entryPoint];
if (serviceName && process.env.OTEL_EXPORTER_OTLP_ENDPOINT) {
  const endpoint = parseEnvironment().OTEL_EXPORTER_OTLP_ENDPOINT;
  const tracing: typeof import('./tracing.ts') = createRequire(import.meta.url)('./tracing.ts');
  if (endpoint) tracing.startTracing(serviceName, { endpoint });
}
