/**
 * Renewals benchmark (issue 9): `count` active monthly subscriptions (10,000 by default) of one
 * seller, every customer attached to ONE test clock, each with a saved `pm_card_visa` and a
 * Stripe customer, all current periods ending at the same instant. Their workflows are started
 * and left waiting on the clock (not measured); then the clock is advanced one month through
 * the API, and measured:
 *   - renewals per second and the time until every subscription is renewed (aim: >= 100/s);
 *   - exactly one paid subscription_cycle order and one succeeded payment (and PaymentIntent)
 *     per subscription, none missing, no duplicates, every period advanced, checked by SQL;
 *   - workflow tasks and database round trips one renewal costs;
 *   - where the time goes: each step of a renewal from the rows' timestamps, and the CPU each
 *     process of the stack (Temporal, worker, API, simulator, stripe-mock, PostgreSQL) burned;
 *   - connections idle in transaction, and the statements they last ran
 *     (bench/lib/connection-states.ts).
 *
 *   node bench/renewals.ts [count=10000] [--kill-worker]
 *
 * With --kill-worker, the run's worker is a pool (TOLLGATE_WORKER_PROCESSES, 2 unless set) one
 * process of which is SIGKILLed once a third of the subscriptions are renewed, the pool restarted
 * at once; the checks must hold all the same.
 *
 * Round trips are counted in the API and worker processes themselves (bench/lib/query-counter.ts
 * preloaded into them); workflow tasks are read from the histories of a sample of subscriptions.
 */
import { rmSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Client, QueryNotRegisteredError } from '@temporalio/client';
import { projectRoot } from '../config/env.ts';
import { stripeSimulatorControl } from '../devstack/stripe-simulator.ts';
import { startSubscription } from '../processes/starters.ts';
import { clockAdvancedSignal, subscriptionStateQuery } from '../processes/subscription-messages.ts';
import { workflowIds } from '../processes/workflow-ids.ts';
import { connectTemporal } from '../temporal/client.ts';
import { apiCaller } from './lib/api-caller.ts';
import { benchRun } from './lib/bench-run.ts';
import { connectionStates } from './lib/connection-states.ts';
import { coresBusy, cpuMsPerOperation, machineCpu, processCpu } from './lib/process-cpu.ts';
import { countQueriesOfAppProcesses, queryCounts } from './lib/query-counts.ts';
import { writeBenchResults } from './lib/results.ts';

const killWorker = process.argv.includes('--kill-worker');
const count = Number(
  process.argv.slice(2).find((argument) => !argument.startsWith('--')) ?? 10_000,
);
if (!(Number.isInteger(count) && count > 0)) {
  throw new Error('usage: node bench/renewals.ts [count=10000] [--kill-worker]');
}
const target = { renewalsPerSecond: 100 };
/** Workflow starts and state queries in flight at once while preparing (not measured). */
const preparationConcurrency = 64;
/** Histories read for the workflow task count. */
const sampleSize = 20;
const priceAmount = 1000;
/** The clock's time when the subscriptions start; mid-month, clear of end-of-month anchoring. */
const periodStart = new Date('2027-01-15T12:00:00.000Z');
const periodEnd = new Date('2027-02-15T12:00:00.000Z');
const nextPeriodEnd = new Date('2027-03-15T12:00:00.000Z');

// Start-up and seeding, then up to 120 ms per subscription to start, query and renew it (this
// machine renews some 20 a second), and the checks.
const run = benchRun('renewals', 400 + 0.12 * count);
const { say } = run;
const workDir = join(projectRoot, '.data', 'bench-renewals');
const countDir = join(workDir, 'query-counts');

const percentile = (sorted: number[], p: number) =>
  sorted.length
    ? (sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0)
    : Number.NaN;
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/** Runs `task` over `items` with `limit` in flight; the first failure stops the rest and fails. */
async function inPool<T>(items: T[], limit: number, task: (item: T) => Promise<void>) {
  let next = 0;
  let failed = false;
  const lane = async () => {
    while (!failed && next < items.length) {
      await task(items[next++] as T).catch((error: unknown) => {
        failed = true;
        throw error;
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

try {
  rmSync(workDir, { recursive: true, force: true });
  countQueriesOfAppProcesses(countDir);

  const loadBefore = loadavg();
  say('starting the test stack');
  const stack = await run.startStack({ restartableWorker: killWorker });
  const apiUrl = await run.startApi(stack, join(workDir, 'tollgate-api.log'));
  const simulatorUrl = stack.env.STRIPE_SIMULATOR_URL;
  if (!simulatorUrl) throw new Error('the test stack runs no Stripe simulator');
  // Stripe's payment_intent.succeeded events reach the API as they would in production.
  await stripeSimulatorControl(simulatorUrl).registerWebhookTarget(
    `${apiUrl}/v1/integrations/stripe/webhook`,
  );
  const temporal: Client = await connectTemporal({
    ...stack.config.temporal,
    address: stack.addresses.temporalAddress,
  });
  run.closeOnCleanUp(() => temporal.connection.close());
  const { orm, organizationId, token } = await run.seedSeller(stack.addresses.databaseUrl);
  const db = orm.em.getConnection();

  const call = apiCaller(apiUrl, token);

  say(`seeding ${count} subscriptions on one test clock`);
  const seedStarted = performance.now();
  const product = await call('POST', '/v1/products/', {
    name: 'Bench monthly plan',
    recurring_interval: 'month',
    prices: [{ amount_type: 'fixed', price_amount: priceAmount }],
  });
  const priceId = product.prices[0].id as string;
  const clock = await call('POST', '/v1/test-clocks/', {
    name: 'Renewals bench',
    frozen_time: periodStart.toISOString(),
  });
  // Every column the entities fill on create, as the checkout would have written them.
  await db.execute(
    `insert into customers (id, organization_id, email, email_verified, name, billing_address,
       metadata, stripe_customer_id, test_clock_id, created_at)
     select gen_random_uuid(), ?, 'subscriber-' || g || '@renewals.bench', true, 'Subscriber ' || g,
       '{"line1": null, "line2": null, "postalCode": null, "city": null, "state": null, "country": "US"}',
       '{}', 'cus_renewals' || g, ?, now()
     from generate_series(1, ?) g`,
    [organizationId, clock.id, count],
  );
  await db.execute(
    `insert into subscriptions (id, organization_id, customer_id, product_id, status, amount,
       currency, recurring_interval, current_period_start, current_period_end, started_at,
       billing_anchor, cancel_at_period_end, pending_items, dunning_attempts, metadata,
       custom_field_data, stripe_payment_method_id, test_clock_id, created_at)
     select gen_random_uuid(), organization_id, id, ?, 'active', ?, 'usd', 'month', ?, ?, ?, ?,
       false, '[]', 0, '{}', '{}', 'pm_card_visa', test_clock_id, now()
     from customers where organization_id = ?`,
    [product.id, priceAmount, periodStart, periodEnd, periodStart, periodStart, organizationId],
  );
  await db.execute(
    `insert into subscription_prices (id, subscription_id, product_price_id)
     select gen_random_uuid(), id, ? from subscriptions where organization_id = ?`,
    [priceId, organizationId],
  );
  await db.execute('analyze');
  const subscriptionIds = (
    await db.execute<{ id: string }[]>(
      'select id from subscriptions where organization_id = ? order by id',
      [organizationId],
    )
  ).map((row) => row.id);
  const seedSeconds = (performance.now() - seedStarted) / 1000;

  say(`starting ${count} subscription workflows (${preparationConcurrency} at once)`);
  const startStarted = performance.now();
  await inPool(subscriptionIds, preparationConcurrency, async (id) => {
    await startSubscription(temporal, id);
  });
  const startSeconds = (performance.now() - startStarted) / 1000;
  run.failIfCrashed();

  // Temporal's signal throughput from a client, for comparison with the clock's advance: the
  // clock's current time again, which wakes a workflow without making anything due.
  const probed = subscriptionIds.slice(0, Math.min(count, 500));
  const probeStarted = performance.now();
  await inPool(probed, preparationConcurrency, async (id) => {
    await temporal.workflow
      .getHandle(workflowIds.subscription(id))
      .signal(clockAdvancedSignal, { testClockId: clock.id, frozenTime: clock.frozen_time });
  });
  const clientSignalsPerSecond = probed.length / ((performance.now() - probeStarted) / 1000);
  say(`${Math.round(clientSignalsPerSecond)} signals/s from the bench (${probed.length} sent)`);

  say('waiting until every workflow waits on the clock for its renewal');
  const waitStarted = performance.now();
  let notWaiting = subscriptionIds;
  for (let round = 0; notWaiting.length > 0; round++) {
    if (round > 0) await sleep(1000);
    if (round > 120) throw new Error(`${notWaiting.length} workflows never waited on the clock`);
    const still: string[] = [];
    await inPool(notWaiting, preparationConcurrency, async (id) => {
      const state = await temporal.workflow
        .getHandle(workflowIds.subscription(id))
        .query(subscriptionStateQuery)
        .catch((error: unknown) => {
          // Asked before its first task registered the query: not waiting yet.
          if (error instanceof QueryNotRegisteredError) return undefined;
          throw error;
        });
      const waiting =
        state?.nextAction.kind === 'renewal' &&
        state.nextAction.at !== null &&
        Date.parse(state.nextAction.at) === periodEnd.getTime();
      if (!waiting) still.push(id);
    });
    notWaiting = still;
    run.failIfCrashed();
  }
  const waitSeconds = (performance.now() - waitStarted) / 1000;

  const postgresPids = async () =>
    (
      await db.execute<{ pid: number }[]>(
        'select pid from pg_stat_activity where datname = current_database()',
      )
    ).map((row) => row.pid);
  await sleep(1000);
  const countsBefore = queryCounts(countDir);
  const cpuBefore = processCpu(await postgresPids());
  const machineBefore = machineCpu();

  say(`advancing the clock one month: ${count} renewals`);
  const advancedAt = Date.now();
  await call('POST', `/v1/test-clocks/${clock.id}/advance`, {
    frozen_time: periodEnd.toISOString(),
  });
  const advanceAnsweredMs = Date.now() - advancedAt;
  const paidCount = async () =>
    Number(
      (
        await db.execute<{ count: string }[]>(
          `select count(*) from orders
           where organization_id = ? and billing_reason = 'subscription_cycle' and status = 'paid'`,
          [organizationId],
        )
      )[0]?.count,
    );
  /** Paid renewals seen by the poll, and when (ms after the advance). */
  const progress: { ms: number; paid: number }[] = [];
  /** The bench database's connections by state, sampled with each poll. */
  const connections = connectionStates(orm);
  let clockReadyMs: number | undefined;
  /** The worker's kill (--kill-worker): after how many renewals, when, and its restart. */
  let killed:
    | (Awaited<ReturnType<typeof run.killWorker>> & { afterMs: number; renewed: number })
    | undefined;
  let lastProgressAt = Date.now();
  for (let paid = 0; paid < count; ) {
    await sleep(250);
    run.failIfCrashed();
    const now = await paidCount();
    const ms = Date.now() - advancedAt;
    if (now > paid) lastProgressAt = Date.now();
    if (Math.floor(ms / 5000) > Math.floor((progress.at(-1)?.ms ?? 0) / 5000)) {
      say(`${now} of ${count} renewed after ${(ms / 1000).toFixed(1)} s`);
    }
    progress.push({ ms, paid: now });
    await connections.sample();
    paid = now;
    if (killWorker && !killed && paid >= count / 3) {
      const afterMs = Date.now() - advancedAt;
      say(`SIGKILL of a worker process after ${paid} renewals`);
      killed = { ...(await run.killWorker()), afterMs, renewed: paid };
      lastProgressAt = Date.now();
    }
    if (clockReadyMs === undefined) {
      const current = await call('GET', `/v1/test-clocks/${clock.id}`);
      if (current.status === 'ready') clockReadyMs = ms;
    }
    if (Date.now() - lastProgressAt > 60_000) {
      // What a subscription still waiting went through, to tell where it is stuck.
      const [stuck] = await db.execute<{ id: string }[]>(
        `select s.id from subscriptions s where s.organization_id = ? and not exists (
           select 1 from orders o where o.subscription_id = s.id and o.status = 'paid')
         limit 1`,
        [organizationId],
      );
      const stuckHistory = stuck
        ? ((await temporal.workflow.getHandle(workflowIds.subscription(stuck.id)).fetchHistory())
            .events ?? [])
        : [];
      const clockNow = await call('GET', `/v1/test-clocks/${clock.id}`);
      throw new Error(
        `no renewal for 60 s: ${paid} of ${count} renewed; clock ${JSON.stringify(clockNow)}; ` +
          `subscription ${stuck?.id} history: ${JSON.stringify(stuckHistory.map((event) => event.eventType))}`,
      );
    }
  }
  const allRenewedPolledMs = Date.now() - advancedAt;
  const cpuAfter = processCpu(await postgresPids());
  const machineAfter = machineCpu();
  // What follows a paid order (Stripe's webhook, the last workflow tasks) lands before counting.
  await sleep(2000);
  const countsAfter = queryCounts(countDir);
  const loadAfter = loadavg();

  say('checking orders, payments, PaymentIntents and periods');
  const [ordersCheck] = await db.execute<
    { missing: string; duplicated: string; unpaid: string; wrong_amount: string }[]
  >(
    `select count(*) filter (where orders = 0) as missing,
            count(*) filter (where orders > 1) as duplicated,
            count(*) filter (where paid <> orders) as unpaid,
            count(*) filter (where wrong_amount > 0) as wrong_amount
     from (select s.id, count(o.id) as orders,
                  count(o.id) filter (where o.status = 'paid') as paid,
                  count(o.id) filter (where o.total_amount <> ?) as wrong_amount
           from subscriptions s
           left join orders o on o.subscription_id = s.id and o.billing_reason = 'subscription_cycle'
           where s.organization_id = ? group by s.id) per_subscription`,
    [priceAmount, organizationId],
  );
  const [paymentsCheck] = await db.execute<
    { missing: string; duplicated: string; not_succeeded: string }[]
  >(
    `select count(*) filter (where succeeded = 0) as missing,
            count(*) filter (where succeeded > 1) as duplicated,
            sum(payments - succeeded) as not_succeeded
     from (select s.id, count(p.id) as payments,
                  count(p.id) filter (where p.status = 'succeeded') as succeeded
           from subscriptions s
           left join orders o on o.subscription_id = s.id and o.billing_reason = 'subscription_cycle'
           left join payments p on p.order_id = o.id
           where s.organization_id = ? group by s.id) per_subscription`,
    [organizationId],
  );
  const [periodsCheck] = await db.execute<{ advanced: string }[]>(
    `select count(*) as advanced from subscriptions
     where organization_id = ? and status = 'active' and current_period_start = ?
       and current_period_end = ?`,
    [organizationId, periodEnd, nextPeriodEnd],
  );
  const [eventsCheck] = await db.execute<{ paid_events: string }[]>(
    `select count(*) as paid_events from outbox_events
     where organization_id = ? and type = 'order.paid'`,
    [organizationId],
  );
  // Stripe's side: one succeeded PaymentIntent per subscriber (each has a Stripe customer).
  const intents = (await (
    await fetch(`${simulatorUrl}/v1/payment_intents?limit=${2 * count + 10}`, {
      headers: { authorization: `Bearer ${stack.config.stripe.secretKey}` },
    })
  ).json()) as { data: { customer: string | null; status: string }[] };
  const intentsPerCustomer = new Map<string, number>();
  for (const intent of intents.data) {
    if (intent.status !== 'succeeded' || !intent.customer) continue;
    intentsPerCustomer.set(intent.customer, (intentsPerCustomer.get(intent.customer) ?? 0) + 1);
  }
  const checks = {
    ordersMissing: Number(ordersCheck?.missing),
    ordersDuplicated: Number(ordersCheck?.duplicated),
    ordersNotPaid: Number(ordersCheck?.unpaid),
    ordersWithWrongTotal: Number(ordersCheck?.wrong_amount),
    paymentsMissing: Number(paymentsCheck?.missing),
    paymentsDuplicated: Number(paymentsCheck?.duplicated),
    paymentsNotSucceeded: Number(paymentsCheck?.not_succeeded ?? 0),
    periodsNotAdvanced: count - Number(periodsCheck?.advanced),
    orderPaidEventsNotOnce: Math.abs(count - Number(eventsCheck?.paid_events)),
    paymentIntentsMissing: count - intentsPerCustomer.size,
    paymentIntentsDuplicated: [...intentsPerCustomer.values()].filter((n) => n > 1).length,
    paymentIntents: intents.data.length,
  };
  const correct = Object.entries(checks).every(
    ([name, value]) => name === 'paymentIntents' || value === 0,
  );

  // Each renewal's steps from its rows' timestamps (written by the worker, on this machine).
  const steps = await db.execute<
    {
      order_created: Date;
      order_modified: Date | null;
      payment_created: Date;
    }[]
  >(
    `select o.created_at as order_created, o.modified_at as order_modified,
            p.created_at as payment_created
     from orders o join payments p on p.order_id = o.id and p.status = 'succeeded'
     where o.organization_id = ? and o.billing_reason = 'subscription_cycle'`,
    [organizationId],
  );
  const at = (instant: Date | null) => (instant ? new Date(instant).getTime() : Number.NaN);
  const paidMs = steps
    .map((row) => at(row.order_modified ?? row.order_created) - advancedAt)
    .sort((a, b) => a - b);
  const stepMs = (name: string, durations: number[]) => {
    const sorted = durations.filter(Number.isFinite).sort((a, b) => a - b);
    return [
      name,
      {
        meanMs: Math.round(mean(sorted)),
        p50Ms: Math.round(percentile(sorted, 50)),
        p99Ms: Math.round(percentile(sorted, 99)),
      },
    ] as const;
  };
  const renewalSteps = Object.fromEntries([
    stepMs(
      'advance → renewal order written',
      steps.map((row) => at(row.order_created) - advancedAt),
    ),
    stepMs(
      'order written → payment attempt written',
      steps.map((row) => at(row.payment_created) - at(row.order_created)),
    ),
    // The payment's own last write may be Stripe's webhook's, in the API: not a step here.
    stepMs(
      'payment attempt → order paid (Stripe charge, settle)',
      steps.map((row) => at(row.order_modified) - at(row.payment_created)),
    ),
    stepMs('advance → order paid', paidMs),
  ]);
  const allRenewedSeconds = (paidMs.at(-1) ?? Number.NaN) / 1000;
  const renewalsPerSecond = count / allRenewedSeconds;
  const tenth = percentile(paidMs, 10);
  const ninetieth = percentile(paidMs, 90);
  const steadyRenewalsPerSecond = (0.8 * count) / ((ninetieth - tenth) / 1000);

  const windowSeconds = allRenewedPolledMs / 1000;
  const cores = coresBusy(cpuBefore, cpuAfter, windowSeconds);
  const machineTicks = {
    busy: machineAfter.busy - machineBefore.busy,
    total: machineAfter.total - machineBefore.total,
  };
  const machineCoresBusy = (machineTicks.busy / machineTicks.total) * cpus().length;
  const oursBusy = Object.values(cores).reduce((sum, value) => sum + value, 0);

  const roundTrips = Object.fromEntries(
    Object.keys(countsAfter).map((role) => [
      role,
      ((countsAfter[role] ?? 0) - (countsBefore[role] ?? 0)) / count,
    ]),
  );

  // Workflow tasks: a sample of subscriptions spread over the set, and the clock's advance.
  const sample = Array.from(
    { length: Math.min(sampleSize, count) },
    (_, index) =>
      subscriptionIds[Math.floor((index * count) / Math.min(sampleSize, count))] as string,
  );
  const timeOf = (event: { eventTime?: { seconds?: unknown; nanos?: number | null } | null }) =>
    Number(event.eventTime?.seconds ?? 0) * 1000 + (event.eventTime?.nanos ?? 0) / 1e6;
  const perRenewal = {
    workflowTasks: [] as number[],
    localActivities: [] as number[],
    activityTasks: [] as number[],
  };
  /** Signals a renewal's history received, by name (the clock's included). */
  const signalsPerRenewal: Record<string, number> = {};
  const history = { workflowTasks: [] as number[], events: [] as number[] };
  const timings = { signalToTaskStartMs: [] as number[], taskRunningMs: [] as number[] };
  for (const id of sample) {
    const events =
      (await temporal.workflow.getHandle(workflowIds.subscription(id)).fetchHistory()).events ?? [];
    history.events.push(events.length);
    history.workflowTasks.push(
      events.filter((event) => event.workflowTaskCompletedEventAttributes).length,
    );
    // The advance's signal (the probe's, earlier, carried the clock's time before it); signal
    // inputs are encrypted in the history, so read through the client's codec.
    const [codec] = temporal.options.loadedDataConverter.payloadCodecs;
    const signalInputs = await Promise.all(
      events.map(async (event) => {
        const payloads = event.workflowExecutionSignaledEventAttributes?.input?.payloads ?? [];
        const [input] = (await codec?.decode(payloads)) ?? payloads;
        return Buffer.from(input?.data ?? []).toString();
      }),
    );
    const signalled = events.findIndex(
      (event, index) =>
        event.workflowExecutionSignaledEventAttributes?.signalName === 'clockAdvanced' &&
        signalInputs[index]?.includes(periodEnd.toISOString()),
    );
    if (signalled < 0) continue;
    const afterSignal = events.slice(signalled);
    perRenewal.workflowTasks.push(
      afterSignal.filter((event) => event.workflowTaskCompletedEventAttributes).length,
    );
    perRenewal.localActivities.push(
      afterSignal.filter((event) => event.markerRecordedEventAttributes).length,
    );
    perRenewal.activityTasks.push(
      afterSignal.filter((event) => event.activityTaskCompletedEventAttributes).length,
    );
    for (const event of afterSignal) {
      const name = event.workflowExecutionSignaledEventAttributes?.signalName;
      if (name) signalsPerRenewal[name] = (signalsPerRenewal[name] ?? 0) + 1 / sample.length;
    }
    const firstStart = afterSignal.find((event) => event.workflowTaskStartedEventAttributes);
    if (firstStart) {
      timings.signalToTaskStartMs.push(timeOf(firstStart) - timeOf(afterSignal[0] ?? firstStart));
    }
    let startedAt: number | undefined;
    let running = 0;
    for (const event of afterSignal) {
      if (event.workflowTaskStartedEventAttributes) startedAt = timeOf(event);
      if (event.workflowTaskCompletedEventAttributes && startedAt !== undefined) {
        running += timeOf(event) - startedAt;
      }
    }
    timings.taskRunningMs.push(running);
  }
  const advanceHistory =
    (
      await temporal.workflow
        .getHandle(workflowIds.testClockAdvance(clock.id, periodEnd))
        .fetchHistory()
    ).events ?? [];
  const advanceTasks = advanceHistory.filter(
    (event) => event.workflowTaskCompletedEventAttributes,
  ).length;

  const connectionsSeen = connections.summary();
  const results = {
    subscriptions: count,
    renewalsPerSecond,
    steadyRenewalsPerSecond,
    allRenewedSeconds,
    allRenewedPolledSeconds: allRenewedPolledMs / 1000,
    advanceAnsweredMs,
    clockReadySeconds: clockReadyMs === undefined ? null : clockReadyMs / 1000,
    clientSignalsPerSecond,
    workerKilled: killed ?? false,
    checks,
    databaseRoundTripsPerRenewal: {
      ...roundTrips,
      total: Object.values(roundTrips).reduce((sum, value) => sum + value, 0),
    },
    workflowTasksPerRenewal: {
      subscription: mean(perRenewal.workflowTasks),
      localActivities: mean(perRenewal.localActivities),
      activityTasks: mean(perRenewal.activityTasks),
      testClockAdvance: advanceTasks / count,
    },
    signalsPerRenewal,
    sampledHistories: {
      histories: sample.length,
      eventsMean: mean(history.events),
      workflowTasksMean: mean(history.workflowTasks),
      signalToWorkflowTaskStartMsMean: Math.round(mean(timings.signalToTaskStartMs)),
      workflowTaskRunningMsMean: Math.round(mean(timings.taskRunningMs)),
    },
    renewalSteps,
    databaseConnectionsMean: connectionsSeen.meanByState,
    idleInTransaction: connectionsSeen.idleInTransaction,
    cpuMsPerRenewal: cpuMsPerOperation(cpuBefore, cpuAfter, count),
    coresBusyWhileRenewing: {
      ...cores,
      'all of the above': Number(oursBusy.toFixed(2)),
      'the machine (others included)': Number(machineCoresBusy.toFixed(2)),
      cores: cpus().length,
    },
    preparation: { seedSeconds, startWorkflowsSeconds: startSeconds, waitSeconds },
    progress: progress.filter((_, index) => index % 4 === 0),
  };
  const met = correct && renewalsPerSecond >= target.renewalsPerSecond;
  console.table({
    subscriptions: { value: count },
    'renewals/s (advance → last paid)': {
      value: Number(renewalsPerSecond.toFixed(1)),
      target: `>= ${target.renewalsPerSecond}`,
      met: met ? 'yes' : 'NO',
    },
    'renewals/s (10% → 90%)': { value: Number(steadyRenewalsPerSecond.toFixed(1)) },
    'time until all renewed (s)': { value: Number(allRenewedSeconds.toFixed(1)) },
    'advance answered (ms)': { value: advanceAnsweredMs },
    'clock ready again (s)': { value: results.clockReadySeconds ?? 'never seen' },
    'signals/s from a client (before, for comparison)': {
      value: Math.round(clientSignalsPerSecond),
    },
    'worker process SIGKILLed (s after the advance, renewed)': {
      value: killed ? `${(killed.afterMs / 1000).toFixed(1)} s, ${killed.renewed} renewed` : 'no',
    },
    'killed → new worker polling (ms)': { value: killed?.restartMs ?? '-' },
    'one order and one charge each, periods advanced': {
      value: correct ? 'yes' : JSON.stringify(checks),
      target: 'yes',
      met: correct ? 'yes' : 'NO',
    },
    ...Object.fromEntries(
      Object.entries(results.databaseRoundTripsPerRenewal).map(([role, value]) => [
        `DB round trips per renewal (${role})`,
        { value: Number(value.toFixed(1)) },
      ]),
    ),
    'workflow tasks per renewal (subscription)': {
      value: results.workflowTasksPerRenewal.subscription,
    },
    'local activities per renewal': { value: results.workflowTasksPerRenewal.localActivities },
    'activity tasks per renewal': { value: results.workflowTasksPerRenewal.activityTasks },
    ...Object.fromEntries(
      Object.entries(signalsPerRenewal).map(([name, value]) => [
        `signals per renewal (${name})`,
        { value: Number(value.toFixed(2)) },
      ]),
    ),
    'workflow tasks per renewal (clock advance)': {
      value: Number(results.workflowTasksPerRenewal.testClockAdvance.toFixed(3)),
    },
    'signal → workflow task started, mean (ms)': {
      value: results.sampledHistories.signalToWorkflowTaskStartMsMean,
    },
    'workflow tasks running, per renewal (ms)': {
      value: results.sampledHistories.workflowTaskRunningMsMean,
    },
    ...Object.fromEntries(
      Object.entries(renewalSteps).map(([name, step]) => [
        `${name} p50 / p99 (ms)`,
        { value: `${step.p50Ms} / ${step.p99Ms}` },
      ]),
    ),
    'DB connections idle in transaction, mean / max': {
      value: `${results.idleInTransaction.mean} / ${results.idleInTransaction.max}`,
      target: '~0',
    },
    ...Object.fromEntries(
      Object.entries(results.databaseConnectionsMean).map(([state, value]) => [
        `DB connections ${state}, mean`,
        { value },
      ]),
    ),
    ...Object.fromEntries(
      Object.entries(results.cpuMsPerRenewal).map(([name, value]) => [
        `CPU ms per renewal: ${name}`,
        { value },
      ]),
    ),
    ...Object.fromEntries(
      Object.entries(results.coresBusyWhileRenewing).map(([name, value]) => [
        `cores busy: ${name}`,
        { value },
      ]),
    ),
  });
  say(
    `load average before ${loadBefore.map((v) => v.toFixed(2)).join(' ')}, after ${loadAfter.map((v) => v.toFixed(2)).join(' ')}`,
  );
  writeBenchResults('renewals', {
    settings: `NODE_ENV=test LOG_LEVEL=warn, ${process.env.TOLLGATE_API_PROCESSES ?? 1} API process(es), ${process.env.TOLLGATE_WORKER_PROCESSES ?? 1} worker process(es), ${count} monthly subscriptions on one test clock, pm_card_visa off-session`,
    targets: target,
    results,
    met: { renewalsPerSecond: renewalsPerSecond >= target.renewalsPerSecond, correct },
    loadAverage: { before: loadBefore, after: loadAfter },
    measuredAt: new Date().toISOString(),
  });
  if (!correct) throw new Error(`renewals are not exactly once: ${JSON.stringify(checks)}`);
} catch (error) {
  process.exitCode = 1;
  say(error instanceof Error ? (error.stack ?? error.message) : String(error));
} finally {
  await run.cleanUp();
}
