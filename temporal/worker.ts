// First: starts tracing, when it is on, before any other module is evaluated.
import '../core/start-tracing.ts';
import cluster from 'node:cluster';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../activities/index.ts';
import { createWebhookActivities } from '../activities/webhooks.ts';
import { webhookDeliverySettings } from '../commerce/webhooks/settings.ts';
import { loadRuntimeConfig, type RuntimeConfig } from '../config/env.ts';
import { createLogger } from '../config/logger.ts';
import { collectProcessMetrics } from '../core/metrics.ts';
import { exitOnceStopped, processPool, stopGraceMs } from '../core/process-pool.ts';
import { installedTracing } from '../core/trace-context.ts';
import { observeDatabase } from '../db/metrics.ts';
import { openOrm } from '../db/orm.ts';
import { createMailer } from '../integrations/mail/transport.ts';
import { createStripeClient } from '../integrations/stripe/client.ts';
import { CustomerMailRelay } from '../processes/customer-mail-relay.ts';
import { endReminderLoop, ensureUpkeepSchedules } from '../processes/upkeep-schedules.ts';
import { WebhookRelay } from '../processes/webhook-relay.ts';
import { connectTemporal } from './client.ts';
import { serveMetrics } from './metrics-endpoint.ts';
import { temporalDataConverter } from './payload-codec.ts';
import { installTemporalMetrics } from './runtime-metrics.ts';
import { taskQueues } from './task-queues.ts';
import { cachedWorkflowBundle } from './workflow-bundle.ts';

/**
 * How much the worker runs at once. A workflow task waiting on its local activities (a renewal's
 * transactions and Stripe call) holds its slot: the default 40 slots capped renewals near 26/s.
 * Those activities share the database pool (10 by default); twice as many slots as here left
 * renewals queueing for connections past their activities' timeouts, retried. The workflow
 * cache keeps the SDK's default, sized from the memory available.
 */
const concurrency = {
  workflowTasks: 100,
  localActivities: 100,
  databaseConnections: 30,
};

/**
 * What a worker does on SIGTERM (`shutdown()`): it stops polling at once and tells the server
 * (the ShutdownWorker call); activities under way get 5 s to finish before they are cancelled
 * (a webhook delivery then abandons its request and is sent again), and after 7 s the worker
 * gives up waiting: both within the grace period a process pool, or a supervisor's 10 s, allows
 * before it kills the process.
 */
const shutdownOptions = { shutdownGraceTime: 5_000, shutdownForceTime: stopGraceMs - 1_000 };

/** The workflows' bundle, made once per version of their code, with tracing's interceptor when on. */
async function workflowBundle() {
  const interceptorModules = installedTracing()
    ? [(await import('./tracing.ts')).workflowInterceptorsModule]
    : [];
  return cachedWorkflowBundle({ interceptorModules });
}

/** A worker on the main task queue with every workflow and activity; `run()` it to poll. */
export async function createWorker(config: RuntimeConfig) {
  const dataConverter = temporalDataConverter(config.temporal.payloadKeys);
  const orm = await openOrm(config.database.url, concurrency.databaseConnections);
  const unobserveDatabase = observeDatabase(orm);
  const connection = await NativeConnection.connect({ address: config.temporal.address });
  const temporal = await connectTemporal(config.temporal);
  const tracing = installedTracing();
  const traced = tracing && (await import('./tracing.ts')).tracingWorkerOptions(tracing);
  const worker = await Worker.create({
    ...traced?.workflows,
    connection,
    namespace: config.temporal.namespace,
    taskQueue: taskQueues.main,
    workflowBundle: await workflowBundle(),
    dataConverter,
    maxConcurrentWorkflowTaskExecutions: concurrency.workflowTasks,
    maxConcurrentLocalActivityExecutions: concurrency.localActivities,
    ...shutdownOptions,
    activities: createActivities({
      config,
      orm,
      mailer: createMailer(config.mail),
      stripe: createStripeClient(config.stripe),
      temporal,
    }),
  });
  // Webhook deliveries on their own queue: hundreds of slow endpoints at once are I/O waits, and
  // they must not hold the slots of the business activities.
  const webhookWorker = await Worker.create({
    ...traced?.activities,
    connection,
    namespace: config.temporal.namespace,
    taskQueue: taskQueues.webhooks,
    dataConverter,
    activities: createWebhookActivities(orm),
    maxConcurrentActivityTaskExecutions: 500,
    ...shutdownOptions,
  });
  // Queues committed outbox events for their endpoints; runs while the workers do.
  const relay = new WebhookRelay({
    databaseUrl: config.database.url,
    temporal,
    logger: createLogger('webhook-relay', config.logLevel),
    workflowTaskQueue: taskQueues.main,
    deliveryTaskQueue: taskQueues.webhooks,
    settings: webhookDeliverySettings(config),
  });
  // Mails customers about their orders and subscriptions; runs while the workers do.
  const customerMailRelay = new CustomerMailRelay({
    databaseUrl: config.database.url,
    orm,
    temporal,
    logger: createLogger('customer-mail-relay', config.logLevel),
    publicUrl: config.api.publicUrl,
  });
  const run = async () => {
    await relay.start();
    await customerMailRelay.start();
    // The periodic jobs: their schedules, created once however many workers start.
    await ensureUpkeepSchedules(temporal, config.upkeep);
    await endReminderLoop(temporal);
    try {
      await Promise.all([worker.run(), webhookWorker.run()]);
    } finally {
      await customerMailRelay.close();
      await relay.close();
    }
  };
  const close = async () => {
    await connection.close();
    await temporal.connection.close();
    unobserveDatabase();
    await orm.close();
  };
  /** What SIGINT and SIGTERM do: both workers finish the tasks in hand, then `run()` returns. */
  const shutdown = () => {
    worker.shutdown();
    webhookWorker.shutdown();
  };
  return { worker, run, shutdown, close };
}

/**
 * The worker's metrics endpoint, when TOLLGATE_WORKER_METRICS_PORT is set: served by the primary
 * of a pool (for all its copies) or by the one process. Unreferenced: it keeps no process alive
 * once its workers have stopped.
 */
async function serveWorkerMetrics(config: RuntimeConfig) {
  const endpoint = config.metrics.workerEndpoint;
  if (endpoint) (await serveMetrics(endpoint, config.metrics.token)).unref();
}

if (import.meta.main) {
  const config = loadRuntimeConfig();
  if (cluster.isPrimary && config.worker.processes > 1) {
    // `config.worker.processes` copies of this worker polling the same task queues.
    const pool = processPool('worker');
    // Bundled here, once, before the copies start: each of them then loads the file.
    await workflowBundle();
    for (let index = 0; index < config.worker.processes; index++) pool.fork();
    await serveWorkerMetrics(config);
  } else {
    // Before the worker connects: the SDK's runtime is made once, with its metrics.
    const stopTemporalMetrics = installTemporalMetrics();
    collectProcessMetrics();
    if (cluster.isPrimary) await serveWorkerMetrics(config);
    const logger = createLogger('worker', config.logLevel);
    const { run, close } = await createWorker(config);
    logger.info({ taskQueue: taskQueues.main }, 'worker polling');
    // The Temporal runtime shuts both workers down on SIGINT and SIGTERM (`shutdown()`): they
    // finish the tasks in hand and `run()` returns.
    try {
      await run();
    } catch (error) {
      // The activities still running after the force time are left to their retries.
      logger.error({ err: error }, 'worker did not stop gracefully');
      process.exitCode = 1;
    }
    await close();
    stopTemporalMetrics();
    await installedTracing()?.shutdown();
    logger.info('worker stopped');
    exitOnceStopped((activeResources) =>
      logger.warn({ activeResources }, 'still running after the worker stopped; exiting'),
    );
  }
}
