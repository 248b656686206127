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
