import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../activities/index.ts';
import { createMailer } from '../activities/mail/transport.ts';
import type { RuntimeConfig } from '../config/env.ts';
import { createStripeClient } from '../config/stripe.ts';
import type { Orm } from '../db/orm.ts';
import { workflowsPath } from './worker.ts';

/** What a test's workers need of a running API: its settings, database and Temporal client. */
interface ApiConnections {
  config: RuntimeConfig;
  orm: Orm;
  temporal: Client;
}

/**
 * Workers a test starts itself, on a task queue of its own that the test run's worker process
 * does not poll: the workflows are bundled once, then the test starts, stops and restarts as
 * many workers as it needs (restart and kill tests). No sticky cache: the next workflow task
 * goes to whichever worker polls, at once, not to a stopped worker's sticky queue, where the
 * server would keep it for 10 s.
 */
export async function workersOnOwnQueue(api: ApiConnections, name: string) {
  const { temporal: settings } = api.config;
  const taskQueue = `test-${name}-${randomUUID()}`;
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath,
    logger: new DefaultLogger('WARN'),
  });
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
    activities,
    /** A worker polling the queue with `workerActivities`; `stop()` shuts it down and waits. */
    async start(workerActivities: object = activities) {
      const worker = await Worker.create({
        connection,
        namespace: settings.namespace,
        taskQueue,
        workflowBundle,
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
