import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@temporalio/client';
import { startTestApi } from '../api/testing.ts';
import { callV1, createSeller, type Seller, type TestApi } from '../commerce/testing.ts';
import { loadRuntimeConfig } from '../config/env.ts';
import { workflowIds } from '../processes/workflow-ids.ts';
import { connectTemporal } from '../temporal/client.ts';
import { taskQueues } from '../temporal/task-queues.ts';
import { startApiProcess, startWorkerProcess } from './app-processes.ts';
import { eventually } from './eventually.ts';
import { findFreePort, Supervisor } from './supervisor.ts';
import { workflowPollers } from './temporal.ts';
import { startOwnTestStack, type TestStack } from './test-stack.ts';

const exitOf = (child: ChildProcess) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve({ code: child.exitCode, signal: child.signalCode });
    } else child.once('exit', (code, signal) => resolve({ code, signal }));
  });

/** Whether a new TCP connection to `port` is refused (rather than accepted). */
const connectionRefused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });

/** TIMEOUT_TYPE_START_TO_CLOSE of Temporal's TimeoutType. */
const startToCloseTimeout = 1;

/** How many workers poll the main task queue for workflow tasks (one per process). */
async function pollerCount(address: string, namespace: string): Promise<number> {
  return new Set(await workflowPollers(address, namespace, taskQueues.main)).size;
}

describe('SIGTERM stops the API and the worker processes gracefully', { timeout: 600_000 }, () => {
  let stack: TestStack;
  let env: NodeJS.ProcessEnv;
  // In this process: makes the seller and takes the Stripe simulator's webhooks.
  let api: TestApi;
  let seller: Seller;
  let temporal: Client;
  // Processes this test stops itself: whatever exits is the test's to check, not a failure.
  const processes = new Supervisor(() => undefined);
  const logFile = (name: string) => join(stack.config.dataDir, 'test-logs', `${name}.log`);

  before(async () => {
    // A stack of its own without a worker: the workers here are the only ones polling.
    const { stack: started, env: own } = await startOwnTestStack({}, { worker: false });
    stack = started;
    env = { ...own, ...stack.env };
    api = await startTestApi(loadRuntimeConfig(env));
    seller = await createSeller(api);
    temporal = await connectTemporal(api.config.temporal);
  });
  after(async () => {
    await temporal?.connection.close();
    await api?.close();
    await processes.stopAll();
    await stack?.stop();
  });

  it('the API answers the request under way, refuses new connections, and exits 0', async () => {
    const port = await findFreePort();
    const url = `http://127.0.0.1:${port}`;
    const primary = await startApiProcess(processes, stack.addresses, {
      env: { ...env, TOLLGATE_API_PROCESSES: '2', TOLLGATE_API_PORT: String(port) },
      url,
      logFile: logFile('shutdown-api'),
    });
    const exited = exitOf(primary);

    // A product created with its body sent in two parts, the process told to stop in between.
    const body = JSON.stringify({
      name: 'Drained ebook',
      prices: [{ amount_type: 'fixed', price_amount: 900, price_currency: 'usd' }],
    });
    const creating = httpRequest({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/v1/products',
      headers: {
        authorization: `Bearer ${seller.token}`,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        connection: 'keep-alive',
        // The server's 100 Continue says the request reached an API process's handler.
        expect: '100-continue',
      },
    });
    const answered = new Promise<IncomingMessage>((resolve, reject) => {
      creating.once('response', resolve);
      creating.once('error', reject);
    });
    await new Promise<void>((resolve) => creating.once('continue', () => resolve()));
    creating.write(body.slice(0, 10));
    primary.kill('SIGTERM');

    // The port is no longer listened to while the request still waits for its body.
    await eventually(
      () => connectionRefused(port),
      (refused) => refused,
      { what: 'new connections refused', timeoutMs: 5_000 },
    );
    creating.end(body.slice(10));
    const answer = await answered;
    const text = await new Promise<string>((resolve) => {
      let received = '';
      answer.setEncoding('utf8');
      answer.on('data', (chunk: string) => {
        received += chunk;
      });
      answer.once('end', () => resolve(received));
    });
    assert.equal(answer.statusCode, 201, text);
    assert.equal(JSON.parse(text).name, 'Drained ebook');
    // Its connection is not kept for another request.
    assert.equal(answer.headers.connection, 'close');

    // Both copies stopped by themselves: none had to be killed at the end of its grace period.
    assert.deepEqual(await exited, { code: 0, signal: null });
  });

  it('a worker exits 0 without losing a workflow task, and the next one completes its workflow', async () => {
    const stopping = await startWorkerProcess(processes, stack.addresses, {
      env: { ...env, TOLLGATE_WORKER_PROCESSES: '2' },
      namespace: stack.config.temporal.namespace,
      logFile: logFile('shutdown-worker-stopping'),
    });
    const exited = exitOf(stopping);
    // Both copies polling: none is still starting when the signal comes.
    await eventually(
      () => pollerCount(stack.addresses.temporalAddress, stack.config.temporal.namespace),
      (count) => count === 2,
      { what: 'both worker processes polling', timeoutMs: 120_000, intervalMs: 250 },
    );
    const product = await seller.polar.products.create({
      name: 'Handed-over ebook',
      prices: [{ amountType: 'fixed', priceAmount: 1500 }],
    });
    const checkout = await seller.polar.checkouts.create({ products: [product.id] });
    const workflow = temporal.workflow.getHandle(workflowIds.checkout(checkout.id));
    const events = async () => (await workflow.fetchHistory()).events ?? [];
    // Its first workflow task done: the workflow is cached by that worker, and its next task
    // would go to that worker's sticky queue.
    await eventually(events, (history) =>
      history.some((event) => event.workflowTaskCompletedEventAttributes),
    );

    stopping.kill('SIGTERM');
    // Both copies stopped by themselves, none killed at the end of its grace period.
    assert.deepEqual(await exited, { code: 0, signal: null });

    await startWorkerProcess(processes, stack.addresses, {
      env,
      namespace: stack.config.temporal.namespace,
      logFile: logFile('shutdown-worker-next'),
    });
    const confirmed = await callV1(
      api,
      null,
      'POST',
      `/v1/checkouts/client/${checkout.clientSecret}/confirm`,
      {
        customer_email: 'handed-over@example.com',
        customer_name: 'Handed Over',
        customer_billing_address: { country: 'FR' },
        confirmation_token_id: 'pm_card_visa',
      },
    );
    assert.equal(confirmed.status, 200);
    assert.equal(await workflow.result(), 'succeeded');

    // No workflow task was handed to the stopping worker and lost there: none failed, and none
    // timed out after it started (a task the worker polled but never answered). A task may still
    // have waited on its sticky queue until the server gave it to the next worker.
    const history = await events();
    assert.deepEqual(
      history.filter(
        (event) =>
          event.workflowTaskTimedOutEventAttributes?.timeoutType === startToCloseTimeout ||
          event.workflowTaskFailedEventAttributes,
      ),
      [],
    );
  });
});
