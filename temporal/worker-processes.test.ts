import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@temporalio/client';
import { startTestApi } from '../api/testing.ts';
import { callV1, createSeller, type Seller, type TestApi } from '../commerce/testing.ts';
import { loadRuntimeConfig } from '../config/env.ts';
import { startWorkerProcess } from '../devstack/app-processes.ts';
import { Supervisor } from '../devstack/supervisor.ts';
import { startOwnTestStack, type TestStack } from '../devstack/test-stack.ts';
import { workflowIds } from '../processes/workflow-ids.ts';
import { connectTemporal } from './client.ts';

/** This process's children running `temporal/worker.ts`, and each one's own children. */
function workerProcesses(): { primary: number; copies: number[] }[] {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((match) => match?.[3]?.includes(join('temporal', 'worker.ts')))
    .map((match) => ({ pid: Number(match?.[1]), ppid: Number(match?.[2]) }));
  return rows
    .filter((row) => row.ppid === process.pid)
    .map(({ pid }) => ({
      primary: pid,
      copies: rows.filter((row) => row.ppid === pid).map((row) => row.pid),
    }));
}

const processAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('two worker processes, one of them SIGKILLed mid-run', () => {
  let stack: TestStack;
  let api: TestApi;
  let seller: Seller;
  let temporal: Client;
  // The worker started again after the kill (its supervisor would: compose, systemd).
  const restarted = new Supervisor(() => undefined);

  before(async () => {
    // A stack of its own (its Temporal server and Stripe simulator): the run's shared worker
    // must not poll these task queues, and its processes are not ours to kill.
    const { stack: started, env: own } = await startOwnTestStack({
      TOLLGATE_WORKER_PROCESSES: '2',
    });
    stack = started;
    const env = { ...own, ...stack.env };
    api = await startTestApi(loadRuntimeConfig(env));
    seller = await createSeller(api);
    temporal = await connectTemporal(api.config.temporal);
  });
  after(async () => {
    await temporal?.connection.close();
    await api?.close();
    await restarted.stopAll();
    await stack?.stop();
  });

  it('completes each checkout exactly once: one order, one payment, one PaymentIntent', async () => {
    const [pool] = workerProcesses();
    assert.ok(pool, 'the stack runs a worker');
    assert.equal(pool.copies.length, 2, 'the worker forks two processes');

    const product = await seller.polar.products.create({
      name: 'Scaled ebook',
      prices: [{ amountType: 'fixed', priceAmount: 1500 }],
    });
    const checkouts = await Promise.all(
      Array.from({ length: 8 }, () => seller.polar.checkouts.create({ products: [product.id] })),
    );
    const confirming = checkouts.map((checkout, index) =>
      callV1(api, null, 'POST', `/v1/checkouts/client/${checkout.clientSecret}/confirm`, {
        customer_email: `scaled-${index}@example.com`,
        customer_name: 'Scaled Buyer',
        customer_billing_address: { country: 'FR' },
        confirmation_token_id: 'pm_card_visa',
      }),
    );
    // Mid-run: as soon as the first confirm is answered, the others still in flight.
    await Promise.race(confirming);
    const [victim, survivor] = pool.copies as [number, number];
    process.kill(victim, 'SIGKILL');

    // As the API's primary does: one copy dying stops the pool, for its supervisor to restart.
    const deadline = Date.now() + 30_000;
    while ([pool.primary, survivor].some(processAlive) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(![pool.primary, survivor].some(processAlive), 'the pool stopped whole');
    await startWorkerProcess(restarted, stack.addresses, {
      env: { ...process.env, ...stack.env, TOLLGATE_WORKER_PROCESSES: '2' },
      namespace: stack.config.temporal.namespace,
      logFile: join(stack.config.dataDir, 'test-logs', 'worker-restarted.log'),
    });
    // Confirms the stopped pool had not finished are answered once the restarted one takes them.
    for (const { status } of await Promise.all(confirming)) assert.equal(status, 200);

    const outcomes = await Promise.all(
      checkouts.map((checkout) =>
        temporal.workflow.getHandle(workflowIds.checkout(checkout.id)).result(),
      ),
    );
    assert.deepEqual(new Set(outcomes), new Set(['succeeded']));

    const em = api.orm.em.fork();
    const rows = await em
      .getConnection()
      .execute<
        { orders: string; paid: string; payments: string; succeeded: string; intents: string }[]
      >(
        `select (select count(*) from orders o where o.checkout_id = c.id) as orders,
              (select count(*) from orders o where o.checkout_id = c.id and o.status = 'paid') as paid,
              (select count(*) from payments p where p.checkout_id = c.id) as payments,
              (select count(*) from payments p where p.checkout_id = c.id and p.status = 'succeeded')
                as succeeded,
              (select count(distinct p.processor_id) from payments p where p.checkout_id = c.id)
                as intents
         from checkouts c where c.id in (${checkouts.map(() => '?').join(', ')})`,
        checkouts.map((checkout) => checkout.id),
      );
    assert.equal(rows.length, checkouts.length);
    for (const row of rows) {
      assert.deepEqual(
        Object.fromEntries(Object.entries(row).map(([name, value]) => [name, Number(value)])),
        { orders: 1, paid: 1, payments: 1, succeeded: 1, intents: 1 },
      );
    }
  });
});
