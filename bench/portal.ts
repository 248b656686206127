/**
 * Customer portal benchmark (issue 17): a customer with 100 orders and 5 subscriptions reads
 * its portal through a customer session, every portal API call at 50 connections: p99 under
 * 20 ms each; and the recovery path (a customer whose renewal was declined adds a new card in
 * the portal, which pays the renewal) under 2 s p99.
 *
 *   node bench/portal.ts [seconds=5] [--cpu-prof]
 */
import { mkdirSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Connection } from '@mikro-orm/postgresql';
import { createCustomerSession } from '../commerce/customer-sessions/service.ts';
import { projectRoot } from '../config/env.ts';
import { stripeSimulatorControl } from '../devstack/stripe-simulator.ts';
import { benchRun } from './lib/bench-run.ts';
import { checkAnswer } from './lib/check-answer.ts';
import { writeBenchResults } from './lib/results.ts';
import type { LoadOptions, LoadSummary } from './lib/run-load.ts';

const options = process.argv.slice(2).filter((argument) => !argument.startsWith('--'));
const durationSeconds = Number(options[0] ?? 5);
const cpuProfile = process.argv.includes('--cpu-prof');
if (!(durationSeconds > 0)) throw new Error('usage: node bench/portal.ts [seconds=5] [--cpu-prof]');

const orderCount = 100;
const subscriptionCount = 5;
const connections = 50;
const apiProcesses = availableParallelism();
const warmupSeconds = 2;
const recoveryCount = 20;
const targets = { portalCallP99Ms: 20, recoveryP99Ms: 2000 };

const run = benchRun('portal', 300 + 12 * (durationSeconds + warmupSeconds + 30));
const { say } = run;
const workDir = join(projectRoot, '.data', 'bench-portal');

/** The seller's API: answers the JSON of a 2xx, throws on anything else. */
function sellerApi(apiUrl: string, token: string) {
  // biome-ignore lint/suspicious/noExplicitAny: the bench reads a few fields of the answers
  return async (method: string, path: string, body?: unknown): Promise<any> => {
    const response = await fetch(`${apiUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = await response.json();
    if (!response.ok) {
      throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
    }
    return answer;
  };
}
type SellerApi = ReturnType<typeof sellerApi>;

/** Asks `done` every 200 ms until it holds; gives up after two minutes. */
async function until(what: string, done: () => Promise<boolean>) {
  const deadline = Date.now() + 120_000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}`);
    run.failIfCrashed();
    await sleep(200);
  }
}

/**
 * The recovery path as customers take it. `recoveryCount` subscribers on one test clock buy
 * the plan with pm_card_visa, whose funds then run out (their saved card becomes Stripe's
 * insufficient-funds card, as commerce/subscriptions/testing.ts does); the clock moves past the
 * renewal and every renewal declines. Then each customer, one after another, adds
 * pm_card_visa in the portal: the time measured is the add's answer, which comes once the
 * card paid the renewal through the subscription's workflow (checked active afterwards).
 */
async function measureRecovery(seller: SellerApi, db: Connection, apiUrl: string, planId: string) {
  const startAt = new Date('2027-01-01T10:00:00Z');
  const clock = await seller('POST', '/v1/test-clocks/', {
    name: 'Portal recovery bench',
    frozen_time: startAt.toISOString(),
  });
  const customerIds: string[] = [];
  for (let index = 0; index < recoveryCount; index++) {
    const email = `recovering-${index}@portal.bench`;
    const customer = await seller('POST', '/v1/customers/', {
      email,
      test_clock_id: clock.id,
    });
    const checkout = await seller('POST', '/v1/checkouts/', {
      products: [planId],
      customer_id: customer.id,
    });
    await seller('POST', `/v1/checkouts/client/${checkout.client_secret}/confirm`, {
      customer_email: email,
      customer_name: 'Recovering customer',
      customer_billing_address: { country: 'FR', city: 'Paris', line1: '1 rue de Rivoli' },
      confirmation_token_id: 'pm_card_visa',
    });
    customerIds.push(customer.id);
  }
  const ofCustomers = customerIds.map((id) => `customer_id=${id}`).join('&');
  const subscriptionsIn = async (status: string) =>
    (await seller('GET', `/v1/subscriptions/?limit=100&status=${status}&${ofCustomers}`)).items;
  await until('every subscriber paid', async () => {
    return (await subscriptionsIn('active')).length === recoveryCount;
  });
  await db.execute(
    `update subscriptions set stripe_payment_method_id = 'pm_card_chargeDeclinedInsufficientFunds'
     where customer_id in (${customerIds.map(() => '?').join(', ')})`,
    customerIds,
  );
  await seller('POST', `/v1/test-clocks/${clock.id}/advance`, {
    frozen_time: new Date(startAt.getTime() + 32 * 24 * 3600 * 1000).toISOString(),
  });
  await until('every renewal declined', async () => {
    return (await subscriptionsIn('past_due')).length === recoveryCount;
  });

  const durationsMs: number[] = [];
  for (const customerId of customerIds) {
    const session = await seller('POST', '/v1/customer-sessions/', { customer_id: customerId });
    const startedAt = performance.now();
    const response = await fetch(`${apiUrl}/v1/customer-portal/customers/me/payment-methods`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${session.token}` },
      body: JSON.stringify({
        confirmation_token_id: 'pm_card_visa',
        set_default: true,
        return_url: `${apiUrl}/portal`,
      }),
    });
    durationsMs.push(performance.now() - startedAt);
    const added = (await response.json()) as { status?: string };
    if (response.status !== 201 || added.status !== 'succeeded') {
      throw new Error(`adding a card answered ${response.status}: ${JSON.stringify(added)}`);
    }
  }
  const recovered = await subscriptionsIn('active');
  if (recovered.length !== recoveryCount) {
    throw new Error(`${recovered.length} of ${recoveryCount} subscriptions recovered`);
  }
  durationsMs.sort((a, b) => a - b);
  const at = (share: number) =>
    Math.round(durationsMs[Math.ceil(share * durationsMs.length) - 1] as number);
  return {
    count: recoveryCount,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    maxMs: at(1),
    // A customer with a Stripe customer and saved cards, for the portal's card list.
    customerWithCards: customerIds[0] as string,
  };
}

/**
 * The seller's catalog through its API (a monthly plan, a one-off product), then the customer's
 * history in bulk with SQL, as checkouts and renewals would have written it: 5 subscriptions
 * on the plan and 100 paid orders, the renewals among them tied to their subscriptions.
 */
async function seedCustomer(databaseUrl: string, apiUrl: string) {
  const { em, organizationId, token } = await run.seedSeller(databaseUrl);
  const create = sellerApi(apiUrl, token);
  const plan = await create('POST', '/v1/products/', {
    name: 'Portal bench plan',
    recurring_interval: 'month',
    prices: [{ amount_type: 'fixed', price_amount: 2900 }],
  });
  const ebook = await create('POST', '/v1/products/', {
    name: 'Portal bench e-book',
    prices: [{ amount_type: 'fixed', price_amount: 1500 }],
  });
  const customer = await create('POST', '/v1/customers/', {
    email: 'reader@portal.bench',
    name: 'Portal reader',
  });
  const connection = em.getConnection();
  const now = Date.now();
  const day = 24 * 60 * 60 * 1000;
  await connection.execute(
    `insert into subscriptions (id, organization_id, customer_id, product_id, status, amount,
       currency, recurring_interval, current_period_start, current_period_end, started_at,
       billing_anchor, cancel_at_period_end, pending_items, dunning_attempts, metadata,
       custom_field_data, stripe_payment_method_id, created_at)
     select gen_random_uuid(), ?, ?, ?, 'active', 2900, 'usd', 'month', ?, ?,
       ?::timestamptz - make_interval(days => 30 * g), ?, false, '[]', 0, '{}', '{}', 'pm_card_visa',
       now() - make_interval(days => 30 * g)
     from generate_series(1, ?) g`,
    [
      organizationId,
      customer.id,
      plan.id,
      new Date(now - 10 * day),
      new Date(now + 20 * day),
      new Date(now),
      new Date(now - 10 * day),
      subscriptionCount,
    ],
  );
  await connection.execute(
    `insert into subscription_prices (id, subscription_id, product_price_id)
     select gen_random_uuid(), id, ? from subscriptions where customer_id = ?`,
    [plan.prices[0].id, customer.id],
  );
  // Order g renews subscription g mod 5 when g is even, and is an e-book otherwise.
  await connection.execute(
    `with subscription as (
       select id, row_number() over (order by created_at) - 1 as n
       from subscriptions where customer_id = ?
     )
     insert into orders (id, organization_id, customer_id, product_id, subscription_id, status,
       billing_reason, subtotal_amount, discount_amount, net_amount, tax_amount, total_amount,
       currency, invoice_number, metadata, custom_field_data, created_at)
     select gen_random_uuid(), ?, ?, case when g % 2 = 0 then ?::uuid else ?::uuid end,
       case when g % 2 = 0 then subscription.id end, 'paid',
       case when g % 2 = 0 then 'subscription_cycle' else 'purchase' end,
       case when g % 2 = 0 then 2900 else 1500 end, 0,
       case when g % 2 = 0 then 2900 else 1500 end, 0,
       case when g % 2 = 0 then 2900 else 1500 end, 'usd',
       'PORTAL-BENCH-' || lpad(g::text, 4, '0'), '{}', '{}', now() - make_interval(days => g)
     from generate_series(1, ?) g
     join subscription on subscription.n = g % ?`,
    [customer.id, organizationId, customer.id, plan.id, ebook.id, orderCount, subscriptionCount],
  );
  await connection.execute(
    `insert into order_items (id, order_id, label, amount, created_at)
     select gen_random_uuid(), id, 'Purchase', subtotal_amount, created_at
     from orders where customer_id = ?`,
    [customer.id],
  );
  await connection.execute(`update organizations set last_invoice_number = ? where id = ?`, [
    orderCount,
    organizationId,
  ]);
  await connection.execute('analyze');
  const { token: sessionToken } = await createCustomerSession(em.fork(), {
    customerId: customer.id,
  });
  const [order] = await connection.execute<{ id: string }[]>(
    'select id from orders where customer_id = ? order by created_at desc limit 1',
    [customer.id],
  );
  const [subscription] = await connection.execute<{ id: string }[]>(
    'select id from subscriptions where customer_id = ? order by created_at desc limit 1',
    [customer.id],
  );
  return {
    seller: create,
    db: connection,
    planId: plan.id as string,
    sessionToken,
    slug: 'portal-bench',
    orderId: order?.id as string,
    subscriptionId: subscription?.id as string,
  };
}

/** A warm-up, then the measured run of one call. */
const measure = (label: string, load: Omit<LoadOptions, 'durationSeconds'>) =>
  run.measure(label, load, { warmupSeconds, durationSeconds });

try {
  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(workDir, { recursive: true });
  const loadBefore = loadavg();
  say('starting the test stack');
  const stack = await run.startStack();
  const apiUrl = await run.startApi(stack, join(workDir, 'tollgate-api.log'), {
    TOLLGATE_API_PROCESSES: String(apiProcesses),
    ...(cpuProfile ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${join(workDir, 'api')}` } : {}),
  });
  say(`seeding a customer with ${orderCount} orders and ${subscriptionCount} subscriptions`);
  const { seller, db, planId, sessionToken, slug, orderId, subscriptionId } = await seedCustomer(
    stack.addresses.databaseUrl,
    apiUrl,
  );
  const portal = `${apiUrl}/v1/customer-portal`;
  // Each call as the portal page makes it, with what its answer must hold to count.
  // biome-ignore lint/suspicious/noExplicitAny: the checks read a few fields of the JSON answer
  const calls: Record<string, { url: string; expect: (body: any) => boolean }> = {
    'customers.get': { url: `${portal}/customers/me`, expect: (me) => me.email !== undefined },
    'orders.list (page of 10)': {
      url: `${portal}/orders/?page=1&limit=10`,
      expect: (page) => page.items.length === 10 && page.pagination.total_count === orderCount,
    },
    'orders.get': { url: `${portal}/orders/${orderId}`, expect: (order) => order.id === orderId },
    'subscriptions.list': {
      url: `${portal}/subscriptions/?page=1&limit=10`,
      expect: (page) => page.items.length === subscriptionCount,
    },
    'subscriptions.get': {
      url: `${portal}/subscriptions/${subscriptionId}`,
      expect: (subscription) => subscription.id === subscriptionId,
    },
    'benefitGrants.list': { url: `${portal}/benefit-grants/`, expect: (page) => !!page.items },
    'customerMeters.list': { url: `${portal}/meters/`, expect: (page) => !!page.items },
    'licenseKeys.list': { url: `${portal}/license-keys/`, expect: (page) => !!page.items },
    'downloadables.list': { url: `${portal}/downloadables/`, expect: (page) => !!page.items },
    'organizations.get': {
      url: `${portal}/organizations/${slug}`,
      expect: (storefront) => storefront.products.length === 2,
    },
  };
  for (const { url, expect } of Object.values(calls)) await checkAnswer(url, sessionToken, expect);

  const headers = { authorization: `Bearer ${sessionToken}` };
  const results: Record<string, LoadSummary> = {};
  for (const [name, { url }] of Object.entries(calls)) {
    results[name] = await measure(name, { url, headers, connections });
  }
  say(`recovery: ${recoveryCount} declined renewals, each paid by a card added in the portal`);
  const simulatorUrl = stack.env.STRIPE_SIMULATOR_URL;
  if (!simulatorUrl) throw new Error('the test stack runs no Stripe simulator');
  // Stripe's events reach the API as they would in production.
  await stripeSimulatorControl(simulatorUrl).registerWebhookTarget(
    `${apiUrl}/v1/integrations/stripe/webhook`,
  );
  const { customerWithCards, ...recovery } = await measureRecovery(seller, db, apiUrl, planId);
  // The card list asks Stripe each time: measured for a customer who has saved cards.
  const cardHolder = await seller('POST', '/v1/customer-sessions/', {
    customer_id: customerWithCards,
  });
  const cardsUrl = `${portal}/customers/me/payment-methods`;
  await checkAnswer(cardsUrl, cardHolder.token, (page) => page.items.length >= 1);
  results['customers.listPaymentMethods'] = await measure('customers.listPaymentMethods', {
    url: cardsUrl,
    headers: { authorization: `Bearer ${cardHolder.token}` },
    connections,
  });
  const loadAfter = loadavg();

  const met = Object.fromEntries(
    Object.entries(results).map(([name, summary]) => [
      name,
      summary.latencyP99Ms <= targets.portalCallP99Ms,
    ]),
  );
  console.table(
    Object.fromEntries(
      Object.entries(results).map(([name, summary]) => [
        name,
        {
          'requests/s': Math.round(summary.requestsPerSecond),
          'p50 (ms)': summary.latencyP50Ms,
          'p99 (ms)': summary.latencyP99Ms,
          target: `p99 <= ${targets.portalCallP99Ms} ms`,
          met: met[name] ? 'yes' : 'NO',
        },
      ]),
    ),
  );
  const recoveryMet = recovery.p99Ms <= targets.recoveryP99Ms;
  console.table({
    'recovery: card added → renewal paid': {
      customers: recovery.count,
      'p50 (ms)': recovery.p50Ms,
      'p99 (ms)': recovery.p99Ms,
      target: `p99 <= ${targets.recoveryP99Ms} ms`,
      met: recoveryMet ? 'yes' : 'NO',
    },
  });
  say(
    `load average before ${loadBefore.map((v) => v.toFixed(2)).join(' ')}, after ${loadAfter.map((v) => v.toFixed(2)).join(' ')}`,
  );
  writeBenchResults('portal', {
    settings: `NODE_ENV=test LOG_LEVEL=warn, ${apiProcesses} API processes, ${connections} connections, ${durationSeconds} s after ${warmupSeconds} s warm-up`,
    dataset: { orders: orderCount, subscriptions: subscriptionCount, recoveryCount },
    targets,
    results,
    recovery,
    met: { ...met, recovery: recoveryMet },
    cpuProfile,
    loadAverage: { before: loadBefore, after: loadAfter },
    measuredAt: new Date().toISOString(),
  });
} catch (error) {
  process.exitCode = 1;
  say(error instanceof Error ? (error.stack ?? error.message) : String(error));
} finally {
  await run.cleanUp();
}
