/**
 * Customer portal benchmark (issue 17): a customer with 100 orders and 5 subscriptions reads
 * its portal through a customer session, every portal API call at 50 connections: p99 under
 * 20 ms each.
 *
 *   node bench/portal.ts [seconds=5] [--cpu-prof]
 */
import { mkdirSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { createCustomerSession } from '../commerce/customer-sessions/service.ts';
import { projectRoot } from '../config/env.ts';
import { benchRun } from './lib/bench-run.ts';
import { checkAnswer } from './lib/check-answer.ts';
import { writeBenchResults } from './lib/results.ts';
import { type LoadSummary, runLoad } from './lib/run-load.ts';

const options = process.argv.slice(2).filter((argument) => !argument.startsWith('--'));
const durationSeconds = Number(options[0] ?? 5);
const cpuProfile = process.argv.includes('--cpu-prof');
if (!(durationSeconds > 0)) throw new Error('usage: node bench/portal.ts [seconds=5] [--cpu-prof]');

const orderCount = 100;
const subscriptionCount = 5;
const connections = 50;
const apiProcesses = availableParallelism();
const warmupSeconds = 2;
const targets = { portalCallP99Ms: 20 };

const run = benchRun('portal', 300 + 12 * (durationSeconds + warmupSeconds + 30));
const { say } = run;
const workDir = join(projectRoot, '.data', 'bench-portal');

/**
 * The seller's catalog through its API (a monthly plan, a one-off product), then the customer's
 * history in bulk with SQL, as checkouts and renewals would have written it: 5 subscriptions
 * on the plan and 100 paid orders, the renewals among them tied to their subscriptions.
 */
async function seedCustomer(databaseUrl: string, apiUrl: string) {
  const { em, organizationId, token } = await run.seedSeller(databaseUrl);
  // biome-ignore lint/suspicious/noExplicitAny: the seed reads a few fields of the answers
  const create = async (path: string, body: unknown): Promise<any> => {
    const response = await fetch(`${apiUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
    const answer = await response.json();
    if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${JSON.stringify(answer)}`);
    return answer;
  };
  const plan = await create('/v1/products/', {
    name: 'Portal bench plan',
    recurring_interval: 'month',
    prices: [{ amount_type: 'fixed', price_amount: 2900 }],
  });
  const ebook = await create('/v1/products/', {
    name: 'Portal bench e-book',
    prices: [{ amount_type: 'fixed', price_amount: 1500 }],
  });
  const customer = await create('/v1/customers/', {
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
       ? - make_interval(days => 30 * g), ?, false, '[]', 0, '{}', '{}', 'pm_card_visa',
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
    sessionToken,
    slug: 'portal-bench',
    orderId: order?.id as string,
    subscriptionId: subscription?.id as string,
  };
}

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
  const { sessionToken, slug, orderId, subscriptionId } = await seedCustomer(
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
    say(`${name}: warm-up ${warmupSeconds} s, then ${durationSeconds} s at ${connections}`);
    const load = { url, headers, connections };
    await runLoad(
      `${name} (warm-up)`,
      { ...load, durationSeconds: warmupSeconds },
      { warmUp: true, signal: run.loadAbort.signal },
    );
    results[name] = await runLoad(
      name,
      { ...load, durationSeconds },
      { signal: run.loadAbort.signal },
    );
    run.failIfCrashed();
  }
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
  say(
    `load average before ${loadBefore.map((v) => v.toFixed(2)).join(' ')}, after ${loadAfter.map((v) => v.toFixed(2)).join(' ')}`,
  );
  writeBenchResults('portal', {
    settings: `NODE_ENV=test LOG_LEVEL=warn, ${apiProcesses} API processes, ${connections} connections, ${durationSeconds} s after ${warmupSeconds} s warm-up`,
    dataset: { orders: orderCount, subscriptions: subscriptionCount },
    targets,
    results,
    met,
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
