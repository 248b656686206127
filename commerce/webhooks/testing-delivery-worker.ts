/**
 * A webhook delivery worker in a process of its own, for the test that kills one mid-delivery
 * (delivery.test.ts): it prints `polling` once it polls.
 *
 *   node commerce/webhooks/testing-delivery-worker.ts <database url> <task queue>
 */
import { NativeConnection, Worker } from '@temporalio/worker';
import { createWebhookActivities } from '../../activities/webhooks.ts';
import { loadRuntimeConfig } from '../../config/env.ts';
import { openOrm } from '../../db/orm.ts';
import { temporalDataConverter } from '../../temporal/payload-codec.ts';

const [databaseUrl, taskQueue] = process.argv.slice(2);
if (!databaseUrl || !taskQueue) throw new Error('usage: <database url> <task queue>');
const config = loadRuntimeConfig();
const orm = await openOrm(databaseUrl);
const connection = await NativeConnection.connect({ address: config.temporal.address });
const worker = await Worker.create({
  connection,
  namespace: config.temporal.namespace,
  taskQueue,
  dataConverter: temporalDataConverter(config.temporal.payloadKeys),
  activities: createWebhookActivities(orm),
});
const running = worker.run();
console.log('polling');
await running;
