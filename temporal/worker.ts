import { join } from 'node:path';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../activities/index.ts';
import { createMailer } from '../activities/mail/transport.ts';
import { loadRuntimeConfig, type RuntimeConfig } from '../config/env.ts';
import { createLogger } from '../config/logger.ts';
import { createStripeClient } from '../config/stripe.ts';
import { openOrm } from '../db/orm.ts';
import { connectTemporal } from './client.ts';
import { taskQueues } from './task-queues.ts';

export const workflowsPath = join(import.meta.dirname, '..', 'workflows', 'index.ts');

/** A worker on the main task queue with every workflow and activity; `run()` it to poll. */
export async function createWorker(config: RuntimeConfig) {
  const orm = await openOrm(config.database.url);
  const connection = await NativeConnection.connect({ address: config.temporal.address });
  const temporal = await connectTemporal(config.temporal);
  const worker = await Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: taskQueues.main,
    workflowsPath,
    activities: createActivities({
      orm,
      mailer: createMailer(config.mail),
      stripe: createStripeClient(config.stripe),
      temporal,
    }),
  });
  const close = async () => {
    await connection.close();
    await temporal.connection.close();
    await orm.close();
  };
  return { worker, close };
}

if (import.meta.main) {
  const config = loadRuntimeConfig();
  const logger = createLogger('worker', config.logLevel);
  const { worker, close } = await createWorker(config);
  logger.info({ taskQueue: taskQueues.main }, 'worker polling');
  // The worker stops itself on SIGINT and SIGTERM, finishing the tasks in hand.
  await worker.run();
  await close();
  logger.info('worker stopped');
}
