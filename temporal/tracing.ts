import { createRequire } from 'node:module';
import type { ClientInterceptors } from '@temporalio/client';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import type { WorkerOptions } from '@temporalio/worker';
import type { Tracing } from '../core/trace-context.ts';

/**
 * Temporal's OpenTelemetry interceptors, loaded (by temporal/client.ts and temporal/worker.ts)
 * only when this process traces. The client's carry the caller's span into the headers of each
 * workflow start, signal, update and query; the workflow's (a module bundled with the workflow
 * code, not a change to it) continue it as the workflow's spans and pass it on to each activity
 * it schedules, where the activity's interceptor makes it the active span: the activity's SQL
 * and HTTP calls are its children.
 */
export function tracingClientInterceptors(): ClientInterceptors {
  return { workflow: [new OpenTelemetryWorkflowClientInterceptor()] };
}

/** Bundled with the workflow code by the worker (temporal/workflow-bundle.ts): the workflow's spans. */
export const workflowInterceptorsModule = createRequire(import.meta.url).resolve(
  '@temporalio/interceptors-opentelemetry/lib/workflow-interceptors',
);

/**
 * The tracing of the worker's two kinds of worker: both have the activities' interceptors; one
 * that runs workflows also has the sink through which the workflow sandbox (its bundle holds the
 * workflow interceptor module) hands its spans to this process's span processor (sinks are not called on
 * replay: no span is exported twice).
 */
export function tracingWorkerOptions(tracing: Tracing) {
  const activity: NonNullable<WorkerOptions['interceptors']>['activity'] = [
    (ctx) => ({
      inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
      outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
    }),
  ];
  const activities: Pick<WorkerOptions, 'interceptors'> = { interceptors: { activity } };
  const workflows: Pick<WorkerOptions, 'interceptors' | 'sinks'> = {
    interceptors: { activity },
    sinks: { exporter: makeWorkflowExporter(tracing.spanProcessor, tracing.resource) },
  };
  return { activities, workflows };
}
