import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { type Client, Connection } from '@temporalio/client';
import { historyToJSON, type JSONPayload } from '@temporalio/common/lib/proto-utils.js';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../activities/index.ts';
import type { RuntimeConfig } from '../config/env.ts';
import type { Orm } from '../db/orm.ts';
import { createMailer } from '../integrations/mail/transport.ts';
import { createStripeClient } from '../integrations/stripe/client.ts';
import { temporalDataConverter } from './payload-codec.ts';
import { cachedWorkflowBundle } from './workflow-bundle.ts';

/** What a test's workers need of a running API: its settings, database and Temporal client. */
interface ApiConnections {
  config: RuntimeConfig;
  orm: Orm;
  temporal: Client;
}

/**
 * Workers a test starts itself, on a task queue of its own that the test run's worker process
 * does not poll: the workflows' bundle is made once (or found made), then the test starts, stops and restarts as
 * many workers as it needs (restart and kill tests). No sticky cache: the next workflow task
 * goes to whichever worker polls, at once, not to a stopped worker's sticky queue, where the
 * server would keep it for 10 s.
 */
export async function workersOnOwnQueue(api: ApiConnections, name: string) {
  const { temporal: settings } = api.config;
  const taskQueue = `test-${name}-${randomUUID()}`;
  const workflowBundle = await cachedWorkflowBundle();
  const dataConverter = temporalDataConverter(settings.payloadKeys);
  const connection = await NativeConnection.connect({ address: settings.address });
  // Every activity, as the worker process builds them, over the API's database and Temporal.
  const activities = createActivities({
    config: api.config,
    orm: api.orm,
    mailer: createMailer(api.config.mail),
    stripe: createStripeClient(api.config.stripe),
    temporal: api.temporal,
  });
  return {
    taskQueue,
    connection,
    /** The data converter of the workers, for more workers of a test's own on `connection`. */
    dataConverter,
    activities,
    /** A worker polling the queue with `workerActivities`; `stop()` shuts it down and waits. */
    async start(workerActivities: object = activities) {
      const worker = await Worker.create({
        connection,
        namespace: settings.namespace,
        taskQueue,
        workflowBundle,
        dataConverter,
        activities: workerActivities,
        maxCachedWorkflows: 0,
      });
      const running = worker.run();
      const stop = async () => {
        worker.shutdown();
        await running;
      };
      return { worker, running, stop };
    },
    /**
     * The activities with `name` doing its work and then never answering, as in a worker that
     * dies right after it: its side effects done, its result never recorded. `done` resolves
     * once the work is done; stop the worker then.
     */
    dyingAfter(name: keyof typeof activities) {
      let workDone: () => void = () => {};
      const done = new Promise<void>((resolve) => {
        workDone = resolve;
      });
      const activity = activities[name] as (...args: unknown[]) => Promise<unknown>;
      const dying = {
        ...activities,
        async [name](...args: unknown[]) {
          await Reflect.apply(activity, activities, args);
          workDone();
          return Context.current().cancelled.then(() => {
            throw new Error('never reached: the worker stops first');
          });
        },
      };
      return { activities: dying, done };
    },
    close: () => connection.close(),
  };
}

/** Every payload of a history in JSON form, wherever it sits: inputs, results, markers, memos. */
function payloadsIn(value: unknown): JSONPayload[] {
  if (Array.isArray(value)) return value.flatMap(payloadsIn);
  if (typeof value !== 'object' || value === null) return [];
  const fields = value as Record<string, unknown>;
  const isPayload = typeof fields.metadata === 'object' && 'data' in fields;
  return isPayload ? [fields as JSONPayload] : Object.values(fields).flatMap(payloadsIn);
}

/**
 * A workflow's history as anyone reading the Temporal server sees it (`temporal workflow show`,
 * the Web UI without a codec): fetched over a bare connection, no data converter. `text` is the
 * whole history followed by every payload's metadata and data decoded from base64, the text to
 * search for a secret; `payloads` are the payloads as stored.
 */
export async function historyWithoutCodec(
  { address, namespace }: { address: string; namespace: string },
  workflowId: string,
): Promise<{ text: string; payloads: JSONPayload[] }> {
  const connection = await Connection.connect({ address });
  try {
    const { history } = await connection.workflowService.getWorkflowExecutionHistory({
      namespace,
      execution: { workflowId },
    });
    const json = historyToJSON(history ?? {});
    const payloads = payloadsIn(JSON.parse(json));
    const decoded = payloads.flatMap(({ metadata, data }) =>
      [...Object.values(metadata ?? {}), data ?? ''].map((base64) =>
        Buffer.from(base64, 'base64').toString('utf8'),
      ),
    );
    return { text: [json, ...decoded].join('\n'), payloads };
  } finally {
    await connection.close();
  }
}

/**
 * Every run of `workflowId`, oldest first, as lines to read when a test of a long-lived workflow
 * fails: each run's status and times, then its events (type, time, and what names the cause:
 * who started it, signals, updates, activities, failures, continue-as-new).
 */
export async function workflowRunsReport(temporal: Client, workflowId: string): Promise<string> {
  const lines: string[] = [];
  const runs = [];
  for await (const run of temporal.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
    runs.push(run);
  }
  runs.sort((a, b) => a.startTime.getTime() - b.startTime.getTime());
  for (const run of runs) {
    lines.push(
      `run ${run.runId} ${run.status.name} ${run.startTime.toISOString()} → ${run.closeTime?.toISOString() ?? 'open'}`,
    );
    const history = await temporal.workflow.getHandle(workflowId, run.runId).fetchHistory();
    for (const event of history.events ?? []) {
      const seconds = Number(event.eventTime?.seconds ?? 0);
      const { eventId, ...attributes } = event;
      const detail = Object.entries(attributes)
        .filter(([key, value]) => key.endsWith('Attributes') && value)
        .map(
          ([key, value]) =>
            `${key.replace(/EventAttributes$/, '')} ${eventDetail(value as object)}`,
        )
        .join(' ');
      lines.push(`  ${eventId} ${new Date(seconds * 1000).toISOString()} ${detail}`);
    }
  }
  return lines.join('\n');
}

/** The names and causes in an event's attributes, without its (encrypted) payloads. */
function eventDetail(attributes: object): string {
  const named = ['signalName', 'identity', 'initiator', 'continuedExecutionRunId', 'cause'];
  const parts = Object.entries(attributes).flatMap(([key, value]) => {
    if (named.includes(key) && value) return [`${key}=${String(value)}`];
    if (key === 'activityType' || key === 'workflowType') return [`${key}=${value?.name}`];
    if (key === 'failure' && value) return [`failure=${JSON.stringify(value.message)}`];
    if (key === 'acceptedRequest' && value) return [`update=${value.input?.name}`];
    if (key === 'markerName') return [`marker=${value}`];
    return [];
  });
  return parts.join(' ');
}
