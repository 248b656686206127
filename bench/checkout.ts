/**
 * Checkout benchmark (issue 8): customers buying at once, each end to end — create a checkout,
 * confirm it with Stripe's `pm_card_visa`, the order paid, the product's benefit granted:
 *   - checkouts completed per second (aim: at least 50);
 *   - p50/p99 from confirm to order paid;
 *   - database round trips and Temporal workflow tasks one checkout costs;
 *   - every confirmed checkout paid exactly once: one paid order, one succeeded payment and one
 *     PaymentIntent (Stripe simulator's) each;
 *   - connections idle in transaction, and the statements they last ran
 *     (bench/lib/connection-states.ts).
 *
 *   node bench/checkout.ts [--seconds=60] [--concurrency=20] [--kill-worker]
 *
 * With --kill-worker, the run's worker is a pool (TOLLGATE_WORKER_PROCESSES, 2 unless set) one
 * process of which is SIGKILLed a third into the measured seconds, the pool restarted at once;
 * the checks must hold all the same.
 *
 * With TOLLGATE_QUERY_COUNT_STATEMENTS=1, the statements one checkout sends, grouped and counted,
 * go to .data/bench-checkout/statements.json (their values blanked; see query-counter.ts).
 *
 * Round trips are counted in the API and worker processes themselves (bench/lib/query-counter.ts
 * preloaded into them); workflow tasks are read from the histories of a sample of checkouts.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Client, isGrpcServiceError } from '@temporalio/client';
import { projectRoot } from '../config/env.ts';
import { placeholders } from '../db/sql.ts';
import { stripeSimulatorControl } from '../devstack/stripe-simulator.ts';
import { workflowIds } from '../processes/workflow-ids.ts';
import { connectTemporal } from '../temporal/client.ts';
import { apiCaller } from './lib/api-caller.ts';
import { benchRun } from './lib/bench-run.ts';
import { connectionStates } from './lib/connection-states.ts';
import { cpuMsPerOperation, processCpu } from './lib/process-cpu.ts';
import { countQueriesOfAppProcesses, queryCounts, statementCounts } from './lib/query-counts.ts';
import { writeBenchResults } from './lib/results.ts';

const flag = (name: string, fallback: number) => {
  const value = process.argv.find((argument) => argument.startsWith(`--${name}=`));
  return value ? Number(value.slice(name.length + 3)) : fallback;
};
const durationSeconds = flag('seconds', 60);
const concurrency = flag('concurrency', 20);
const killWorker = process.argv.includes('--kill-worker');
if (!(durationSeconds > 0 && Number.isInteger(concurrency) && concurrency > 0)) {
  throw new Error(
    'usage: node bench/checkout.ts [--seconds=60] [--concurrency=20] [--kill-worker]',
  );
}
const warmupSeconds = 5;
const apiProcesses = Number(process.env.TOLLGATE_API_PROCESSES ?? availableParallelism());
const target = { checkoutsPerSecond: 50 };
/** Histories read for the workflow task count. */
const sampleSize = 20;

const run = benchRun('checkout', 300 + 2 * (durationSeconds + warmupSeconds) + 120);
const { say } = run;
const workDir = join(projectRoot, '.data', 'bench-checkout');
const countDir = join(workDir, 'query-counts');

interface Completed {
  checkoutId: string;
  customerId: string;
  createdAt: number;
  confirmedAt: number;
  grantedAt: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted.length
    ? (sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0)
    : 0;

try {
  rmSync(workDir, { recursive: true, force: true });
  // Inherited by the worker and API processes the stack and the run start.
  countQueriesOfAppProcesses(countDir);

  const loadBefore = loadavg();
  say('starting the test stack');
  const stack = await run.startStack({ restartableWorker: killWorker });
  const apiUrl = await run.startApi(stack, join(workDir, 'tollgate-api.log'), {
    TOLLGATE_API_PROCESSES: String(apiProcesses),
  });
  const simulatorUrl = stack.env.STRIPE_SIMULATOR_URL;
  if (!simulatorUrl) throw new Error('the test stack runs no Stripe simulator');
  const webhookUrl = `${apiUrl}/v1/integrations/stripe/webhook`;
  await stripeSimulatorControl(simulatorUrl).registerWebhookTarget(webhookUrl);
  const temporal: Client = await connectTemporal({
    ...stack.config.temporal,
    address: stack.addresses.temporalAddress,
  });
  run.closeOnCleanUp(() => temporal.connection.close());
  const { orm, organizationId, token } = await run.seedSeller(stack.addresses.databaseUrl);
  const db = orm.em.getConnection();

  const call = apiCaller(apiUrl, token);
  const benefit = await call('POST', '/v1/benefits/', {
    type: 'custom',
    description: 'Bench community',
    properties: { note: 'Welcome' },
  });
  const product = await call('POST', '/v1/products/', {
    name: 'Bench ebook',
    prices: [{ amount_type: 'fixed', price_amount: 1000 }],
  });
  await call('POST', `/v1/products/${product.id}/benefits`, { benefits: [benefit.id] });

  let sequence = 0;
  /** One customer's purchase, end to end. */
  async function checkoutOnce(): Promise<Completed> {
    const createdAt = Date.now();
    const checkout = await call('POST', '/v1/checkouts/', { products: [product.id] });
    const confirmedAt = Date.now();
    sequence += 1;
    const confirmed = await call(
      'POST',
      `/v1/checkouts/client/${checkout.client_secret}/confirm`,
      {
        customer_email: `buyer-${sequence}-${createdAt}@checkout.bench`,
        customer_name: 'Bench Buyer',
        customer_billing_address: { country: 'FR' },
        confirmation_token_id: 'pm_card_visa',
      },
      false,
    );
    const outcome = await temporal.workflow.getHandle(workflowIds.checkout(checkout.id)).result();
    if (outcome !== 'succeeded') throw new Error(`checkout ${checkout.id} ${outcome}`);
    for (;;) {
      const [granted] = await db.execute<{ count: string }[]>(
        'select count(*) from benefit_grants where customer_id = ? and granted_at is not null',
        [confirmed.customer_id],
      );
      if (Number(granted?.count) > 0) break;
      await sleep(20);
    }
    return {
      checkoutId: checkout.id,
      customerId: confirmed.customer_id,
      createdAt,
      confirmedAt,
      grantedAt: Date.now(),
    };
  }

  /** `concurrency` customers buying one after another until `seconds` are up. */
  async function phase(seconds: number): Promise<{ completed: Completed[]; seconds: number }> {
    const started = performance.now();
    const deadline = Date.now() + seconds * 1000;
    const completed: Completed[] = [];
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (Date.now() < deadline) {
          completed.push(await checkoutOnce());
          run.failIfCrashed();
        }
      }),
    );
    return { completed, seconds: (performance.now() - started) / 1000 };
  }

  say(`warm-up: ${warmupSeconds} s, ${concurrency} customers`);
  await phase(warmupSeconds);
  await sleep(1000);
  const countsBefore = queryCounts(countDir);
  const statementsBefore = statementCounts(countDir);
  // The PostgreSQL backends serving the bench's database, for their CPU per checkout.
  const postgresPids = async () =>
    (
      await db.execute<{ pid: number }[]>(
        'select pid from pg_stat_activity where datname = current_database()',
      )
    ).map((row) => row.pid);
  const cpuBefore = processCpu(await postgresPids());
  say(`measuring: ${durationSeconds} s, ${concurrency} customers`);
  const connections = connectionStates(orm);
  const measuring = phase(durationSeconds);
  const sampling = (async () => {
    for (let done = false; !done; ) {
      await connections.sample();
      done = await Promise.race([measuring.then(() => true), sleep(250, false)]);
    }
  })();
  const [measured, killed] = await Promise.all([
    measuring,
    killWorker &&
      sleep((durationSeconds * 1000) / 3).then(async () => {
        say(`SIGKILL of a worker process ${(durationSeconds / 3).toFixed(1)} s into the measure`);
        return { ...(await run.killWorker()), afterSeconds: durationSeconds / 3 };
      }),
  ]);
  await sampling;
  await sleep(1000);
  const countsAfter = queryCounts(countDir);
  const statementsAfter = statementCounts(countDir);
  const cpuAfter = processCpu(await postgresPids());
  const loadAfter = loadavg();
  const { completed } = measured;
  const count = completed.length;

  const orders = await db.execute<{ checkout_id: string; created_at: string }[]>(
    `select checkout_id, created_at from orders where checkout_id in (${placeholders(count)})`,
    completed.map((done) => done.checkoutId),
  );
  const paidAt = new Map(orders.map((order) => [order.checkout_id, Date.parse(order.created_at)]));
  const confirmToPaid = completed
    .map((done) => (paidAt.get(done.checkoutId) ?? Number.NaN) - done.confirmedAt)
    .sort((a, b) => a - b);

  say('checking orders, payments and PaymentIntents of every confirmed checkout');
  const [ordersCheck] = await db.execute<
    {
      checkouts: string;
      orders_missing: string;
      orders_duplicated: string;
      orders_not_paid: string;
      payments_missing: string;
      payments_duplicated: string;
    }[]
  >(
    `select count(*) as checkouts,
            count(*) filter (where orders = 0) as orders_missing,
            count(*) filter (where orders > 1) as orders_duplicated,
            count(*) filter (where paid <> orders) as orders_not_paid,
            count(*) filter (where payments = 0) as payments_missing,
            count(*) filter (where payments > 1) as payments_duplicated
     from (select c.id,
                  (select count(*) from orders o where o.checkout_id = c.id) as orders,
                  (select count(*) from orders o
                   where o.checkout_id = c.id and o.status = 'paid') as paid,
                  (select count(*) from payments p
                   where p.checkout_id = c.id and p.status = 'succeeded') as payments
           from checkouts c
           where c.organization_id = ? and c.confirmed_at is not null) per_checkout`,
    [organizationId],
  );
  // Stripe's side: the PaymentIntents the simulator kept, by the checkout their metadata names.
  const confirmedIds = (
    await db.execute<{ id: string }[]>(
      'select id from checkouts where organization_id = ? and confirmed_at is not null',
      [organizationId],
    )
  ).map((row) => row.id);
  const intents = (await (
    await fetch(`${simulatorUrl}/v1/payment_intents?limit=${2 * confirmedIds.length + 10}`, {
      headers: { authorization: `Bearer ${stack.config.stripe.secretKey}` },
    })
  ).json()) as { data: { metadata?: Record<string, string> }[] };
  const intentsPerCheckout = new Map<string, number>();
  for (const intent of intents.data) {
    const checkoutId = intent.metadata?.checkout_id;
    if (checkoutId)
      intentsPerCheckout.set(checkoutId, (intentsPerCheckout.get(checkoutId) ?? 0) + 1);
  }
  const checks = {
    confirmedCheckouts: Number(ordersCheck?.checkouts),
    ordersMissing: Number(ordersCheck?.orders_missing),
    ordersDuplicated: Number(ordersCheck?.orders_duplicated),
    ordersNotPaid: Number(ordersCheck?.orders_not_paid),
    paymentsMissing: Number(ordersCheck?.payments_missing),
    paymentsDuplicated: Number(ordersCheck?.payments_duplicated),
    paymentIntentsMissing: confirmedIds.filter((id) => !intentsPerCheckout.has(id)).length,
    paymentIntentsDuplicated: [...intentsPerCheckout.values()].filter((n) => n > 1).length,
  };
  const correct =
    checks.confirmedCheckouts > 0 &&
    Object.entries(checks).every(([name, value]) => name === 'confirmedCheckouts' || value === 0);

  const endToEnd = completed.map((done) => done.grantedAt - done.createdAt).sort((a, b) => a - b);

  const roundTrips = Object.fromEntries(
    Object.keys(countsAfter).map((role) => [
      role,
      ((countsAfter[role] ?? 0) - (countsBefore[role] ?? 0)) / count,
    ]),
  );

  if (process.env.TOLLGATE_QUERY_COUNT_STATEMENTS) {
    const perCheckout = Object.entries(statementsAfter)
      .map(([statement, sent]) => ({
        statement,
        perCheckout: Number(((sent - (statementsBefore[statement] ?? 0)) / count).toFixed(2)),
      }))
      .filter((group) => group.perCheckout > 0)
      .sort((a, b) => b.perCheckout - a.perCheckout);
    writeFileSync(join(workDir, 'statements.json'), JSON.stringify(perCheckout, null, 2));
    say(`statements per checkout: ${join(workDir, 'statements.json')}`);
  }

  // Workflow tasks: the checkout's own, and the benefit grant's when it started one (a benefit the
  // database alone gives is granted in the checkout's workflow since grant-benefits-in-the-checkout).
  const sample = completed.slice(0, sampleSize);
  const historyOf = async (workflowId: string) =>
    (await temporal.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const at = (event: { eventTime?: { seconds?: unknown; nanos?: number | null } | null }) =>
    Number(event.eventTime?.seconds ?? 0) * 1000 + (event.eventTime?.nanos ?? 0) / 1e6;
  let checkoutTasks = 0;
  let grantTasks = 0;
  let activityTasks = 0;
  /** Where a checkout's time goes: each activity from scheduled to completed, summed. */
  const activityMs: Record<string, number> = {};
  for (const done of sample) {
    const events = await historyOf(workflowIds.checkout(done.checkoutId));
    checkoutTasks += events.filter((event) => event.workflowTaskCompletedEventAttributes).length;
    activityTasks += events.filter((event) => event.activityTaskCompletedEventAttributes).length;
    const scheduled = new Map<string, { name: string; at: number }>();
    for (const event of events) {
      const name = event.activityTaskScheduledEventAttributes?.activityType?.name;
      if (name) scheduled.set(String(event.eventId), { name, at: at(event) });
      const completedId = event.activityTaskCompletedEventAttributes?.scheduledEventId;
      const start = completedId == null ? undefined : scheduled.get(String(completedId));
      if (start) activityMs[start.name] = (activityMs[start.name] ?? 0) + at(event) - start.at;
    }
    const grant = await historyOf(workflowIds.benefitGrant(done.customerId, benefit.id)).catch(
      (error: unknown) => {
        // gRPC's NOT_FOUND: the checkout granted its benefit itself, starting no grant workflow.
        if (isGrpcServiceError(error) && error.code === 5) return [];
        throw error;
      },
    );
    grantTasks += grant.filter((event) => event.workflowTaskCompletedEventAttributes).length;
    activityTasks += grant.filter((event) => event.activityTaskCompletedEventAttributes).length;
  }

  const checkoutsPerSecond = count / measured.seconds;
  const connectionsSeen = connections.summary();
  const results = {
    completed: count,
    checkoutsPerSecond,
    workerKilled: killed || false,
    checks,
    confirmToOrderPaidMs: {
      p50: percentile(confirmToPaid, 50),
      p99: percentile(confirmToPaid, 99),
    },
    createToBenefitGrantedMs: { p50: percentile(endToEnd, 50), p99: percentile(endToEnd, 99) },
    databaseRoundTripsPerCheckout: {
      ...roundTrips,
      total: Object.values(roundTrips).reduce((sum, value) => sum + value, 0),
    },
    workflowTasksPerCheckout: {
      checkout: checkoutTasks / sample.length,
      benefitGrant: grantTasks / sample.length,
      activityTasks: activityTasks / sample.length,
    },
    cpuMsPerCheckout: cpuMsPerOperation(cpuBefore, cpuAfter, count),
    databaseConnectionsMean: connectionsSeen.meanByState,
    idleInTransaction: connectionsSeen.idleInTransaction,
    activityMs: Object.fromEntries(
      Object.entries(activityMs).map(([name, total]) => [name, Math.round(total / sample.length)]),
    ),
  };
  const met = checkoutsPerSecond >= target.checkoutsPerSecond;
  console.table({
    'checkouts completed': { value: count },
    'checkouts/s': {
      value: Number(checkoutsPerSecond.toFixed(1)),
      target: `>= ${target.checkoutsPerSecond}`,
      met: met ? 'yes' : 'NO',
    },
    'worker process SIGKILLed (s into the measure)': {
      value: killed ? Number(killed.afterSeconds.toFixed(1)) : 'no',
    },
    'killed → new worker polling (ms)': { value: killed ? killed.restartMs : '-' },
    'every confirmed checkout paid once (order, payment, PaymentIntent)': {
      value: correct ? 'yes' : JSON.stringify(checks),
      target: 'yes',
      met: correct ? 'yes' : 'NO',
    },
    'confirm → order paid p50 (ms)': { value: results.confirmToOrderPaidMs.p50 },
    'confirm → order paid p99 (ms)': { value: results.confirmToOrderPaidMs.p99 },
    'create → benefit granted p50 (ms)': { value: results.createToBenefitGrantedMs.p50 },
    'create → benefit granted p99 (ms)': { value: results.createToBenefitGrantedMs.p99 },
    ...Object.fromEntries(
      Object.entries(results.databaseRoundTripsPerCheckout).map(([role, value]) => [
        `DB round trips per checkout (${role})`,
        { value: Number(value.toFixed(1)) },
      ]),
    ),
    'workflow tasks per checkout (checkout)': { value: results.workflowTasksPerCheckout.checkout },
    'workflow tasks per checkout (grant)': { value: results.workflowTasksPerCheckout.benefitGrant },
    'activity tasks per checkout (checkout and grant)': {
      value: results.workflowTasksPerCheckout.activityTasks,
    },
    'DB connections idle in transaction, mean / max': {
      value: `${results.idleInTransaction.mean} / ${results.idleInTransaction.max}`,
      target: '~0',
    },
    ...Object.fromEntries(
      Object.entries(results.cpuMsPerCheckout).map(([name, value]) => [
        `CPU ms per checkout: ${name}`,
        { value },
      ]),
    ),
    ...Object.fromEntries(
      Object.entries(results.activityMs).map(([name, ms]) => [
        `activity ${name}, scheduled → completed (ms)`,
        { value: ms },
      ]),
    ),
  });
  say(
    `load average before ${loadBefore.map((v) => v.toFixed(2)).join(' ')}, after ${loadAfter.map((v) => v.toFixed(2)).join(' ')}`,
  );
  writeBenchResults('checkout', {
    settings: `NODE_ENV=test LOG_LEVEL=warn, ${apiProcesses} API processes, ${process.env.TOLLGATE_WORKER_PROCESSES ?? 1} worker process(es), ${concurrency} customers, ${durationSeconds} s after ${warmupSeconds} s warm-up`,
    targets: target,
    results,
    met: { checkoutsPerSecond: met, correct },
    loadAverage: { before: loadBefore, after: loadAfter },
    measuredAt: new Date().toISOString(),
  });
  if (!correct) throw new Error(`checkouts are not paid exactly once: ${JSON.stringify(checks)}`);
} catch (error) {
  process.exitCode = 1;
  say(error instanceof Error ? (error.stack ?? error.message) : String(error));
} finally {
  await run.cleanUp();
}
