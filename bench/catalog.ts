/**
 * Catalog benchmark (issue 5): with 10,000 products and 100,000 customers in one organization,
 *   - list products, a page of 100, at 50 connections: p99 under 20 ms;
 *   - get customer state at 50 connections: p99 under 20 ms;
 *   - create customer: at least 1,000 per second.
 *
 *   node bench/catalog.ts [seconds=10] [--cpu-prof]
 */
import { mkdirSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../config/env.ts';
import { benchRun } from './lib/bench-run.ts';
import { checkAnswer } from './lib/check-answer.ts';
import {
  type CpuUse,
  cpuBound,
  cpuTable,
  postgresBackends,
  serverMsPerOperation,
} from './lib/cpu-use.ts';
import { writeBenchResults } from './lib/results.ts';
import type { LoadOptions, LoadSummary } from './lib/run-load.ts';

const options = process.argv.slice(2).filter((argument) => !argument.startsWith('--'));
const durationSeconds = Number(options[0] ?? 10);
const cpuProfile = process.argv.includes('--cpu-prof');
if (!(durationSeconds > 0))
  throw new Error('usage: node bench/catalog.ts [seconds=10] [--cpu-prof]');

const productCount = 10_000;
const customerCount = 100_000;
const connections = 50;
// As deployed: one API process per core (the production default); `--processes=N` to compare.
const apiProcesses = Number(
  /^--processes=(\d+)$/.exec(process.argv.find((a) => a.startsWith('--processes=')) ?? '')?.[1] ??
    availableParallelism(),
);
const warmupSeconds = 2;
const targets = { listProductsP99Ms: 20, customerStateP99Ms: 20, createCustomersPerSecond: 1000 };

const run = benchRun('catalog', 300 + 4 * (durationSeconds + warmupSeconds + 60));
const { say } = run;
const workDir = join(projectRoot, '.data', 'bench-catalog');

/**
 * One seller with the catalog the issue names, written in bulk with SQL (the API's own create
 * paths are measured separately): products with a fixed price and two benefits each, customers,
 * and one customer holding a granted benefit and a meter, whose state is read.
 */
async function seedCatalog(databaseUrl: string) {
  const { orm, em, organizationId, token } = await run.seedSeller(databaseUrl);
  const sql = (query: string) => em.getConnection().execute(query, [organizationId]);
  await sql(`
    insert into benefits (id, organization_id, type, description, properties, metadata, created_at)
    select gen_random_uuid(), ?, 'custom', 'Benefit ' || g, '{"note": "Thanks"}', '{}', now()
    from generate_series(1, 2) g`);
  await sql(`
    insert into meters (id, organization_id, name, filter, aggregation, metadata, created_at)
    values (gen_random_uuid(), ?, 'API calls', '{"conjunction": "and", "clauses": []}',
      '{"func": "count"}', '{}', now())`);
  await sql(`
    insert into products (id, organization_id, name, description, recurring_interval,
      is_archived, metadata, created_at)
    select gen_random_uuid(), ?, 'Product ' || g, 'Product number ' || g,
      case when g % 2 = 0 then 'month' end, false, jsonb_build_object('rank', g),
      now() - make_interval(secs => g)
    from generate_series(1, ${productCount}) g`);
  await sql(`
    insert into product_prices (id, product_id, amount_type, price_currency, price_amount,
      is_archived, created_at)
    select gen_random_uuid(), id, 'fixed', 'usd', 1000 + (random() * 9000)::int, false, created_at
    from products where organization_id = ?`);
  await sql(`
    insert into product_benefits (id, product_id, benefit_id, "order", created_at)
    select gen_random_uuid(), p.id, b.id, row_number() over (partition by p.id order by b.description), now()
    from products p cross join benefits b
    where p.organization_id = ? and b.organization_id = p.organization_id`);
  await sql(`
    insert into customers (id, organization_id, email, email_verified, name, metadata, created_at)
    select gen_random_uuid(), ?, 'customer-' || g || '@catalog.bench', false, 'Customer ' || g,
      '{}', now() - make_interval(secs => g)
    from generate_series(1, ${customerCount}) g`);
  const [customer] = await em
    .getConnection()
    .execute<{ id: string }[]>(
      `select id from customers where organization_id = ? order by created_at limit 1`,
      [organizationId],
    );
  const customerId = customer?.id as string;
  await em.getConnection().execute(
    `insert into benefit_grants (id, customer_id, benefit_id, granted_at, properties, created_at)
     select gen_random_uuid(), ?, id, now(), '{}', now() from benefits where organization_id = ?`,
    [customerId, organizationId],
  );
  await em.getConnection().execute(
    `insert into customer_meters (id, customer_id, meter_id, consumed_units, credited_units, created_at)
     select gen_random_uuid(), ?, id, 12.5, 100, now() from meters where organization_id = ?`,
    [customerId, organizationId],
  );
  await em.getConnection().execute('analyze');
  return { orm, token, customerId };
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
  say(`seeding ${productCount} products and ${customerCount} customers`);
  const seedStarted = performance.now();
  const { orm, token, customerId } = await seedCatalog(stack.addresses.databaseUrl);
  /** A warm-up, then the measured run of one call and the CPU it cost. */
  const measure = (label: string, load: Omit<LoadOptions, 'durationSeconds'>) =>
    run.measureWithCpu(label, load, { warmupSeconds, durationSeconds }, postgresBackends(orm));
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  const headers = { authorization: `Bearer ${token}` };

  const listUrl = `${apiUrl}/v1/products/?page=1&limit=100`;
  await checkAnswer(
    listUrl,
    token,
    (page) => page.items.length === 100 && page.items[0].prices.length === 1,
  );
  const stateUrl = `${apiUrl}/v1/customers/${customerId}/state`;
  await checkAnswer(stateUrl, token, (state) => state.granted_benefits.length === 2);

  const measured = {
    'list products (page of 100)': await measure('list products', {
      url: listUrl,
      headers,
      connections,
    }),
    'get customer state': await measure('customer state', { url: stateUrl, headers, connections }),
    'create customer': await measure('create customer', {
      url: `${apiUrl}/v1/customers/`,
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'new-[<id>]@catalog.bench', name: 'New customer' }),
      idReplacement: true,
      connections,
    }),
  };
  const results: Record<string, LoadSummary> = Object.fromEntries(
    Object.entries(measured).map(([name, { summary }]) => [name, summary]),
  );
  const cpu: Record<string, CpuUse> = Object.fromEntries(
    Object.entries(measured).map(([name, { cpu }]) => [name, cpu]),
  );
  // The rate each aim needs: a p99 aim at `connections` closed-loop connections needs at least
  // connections / p99 answers per second (Little's law: mean latency = connections / rate, and the
  // p99 is above the mean); a rate aim, that rate. The measured CPU ms per request of the server's
  // processes (API, worker, Temporal, PostgreSQL) give the rate the machine's cores allow them, the
  // load generator and other work apart, and the cores the aim needs.
  const neededRates: Record<string, number> = {
    'list products (page of 100)': connections / (targets.listProductsP99Ms / 1000),
    'get customer state': connections / (targets.customerStateP99Ms / 1000),
    'create customer': targets.createCustomersPerSecond,
  };
  const capacity = Object.fromEntries(
    Object.entries(cpu).map(([name, use]) => {
      const serverMs = serverMsPerOperation(use);
      const needed = neededRates[name] as number;
      return [
        name,
        {
          'server CPU ms/request': Number(serverMs.toFixed(2)),
          'CPU-bound (machine ≥ 90 % busy)': cpuBound(use),
          'requests/s the cores allow': Math.round((use.cores * 1000) / serverMs),
          'requests/s the aim needs': Math.round(needed),
          'cores to reach the aim': Number(((needed * serverMs) / 1000).toFixed(1)),
        },
      ];
    }),
  );
  const loadAfter = loadavg();

  const verdicts = {
    'list products (page of 100)':
      (results['list products (page of 100)']?.latencyP99Ms as number) <= targets.listProductsP99Ms,
    'get customer state':
      (results['get customer state']?.latencyP99Ms as number) <= targets.customerStateP99Ms,
    'create customer':
      (results['create customer']?.requestsPerSecond as number) >= targets.createCustomersPerSecond,
  };
  const targetText = {
    'list products (page of 100)': `p99 <= ${targets.listProductsP99Ms} ms`,
    'get customer state': `p99 <= ${targets.customerStateP99Ms} ms`,
    'create customer': `>= ${targets.createCustomersPerSecond}/s`,
  };
  console.table(
    Object.fromEntries(
      Object.entries(results).map(([name, summary]) => [
        name,
        {
          'requests/s': Math.round(summary.requestsPerSecond),
          'p50 (ms)': summary.latencyP50Ms,
          'p99 (ms)': summary.latencyP99Ms,
          target: targetText[name as keyof typeof targetText],
          met: verdicts[name as keyof typeof verdicts] ? 'yes' : 'NO',
        },
      ]),
    ),
  );
  say('CPU ms per request of each process during the measured runs');
  console.table(cpuTable(cpu));
  console.table(capacity);
  say(
    `seeded in ${seedSeconds.toFixed(1)} s; load average before ${loadBefore.map((v) => v.toFixed(2)).join(' ')}, after ${loadAfter.map((v) => v.toFixed(2)).join(' ')}`,
  );

  writeBenchResults('catalog', {
    settings: `NODE_ENV=test LOG_LEVEL=warn, ${apiProcesses} API processes, ${connections} connections, ${durationSeconds} s after ${warmupSeconds} s warm-up`,
    dataset: { products: productCount, customers: customerCount, seedSeconds },
    targets,
    results,
    met: verdicts,
    cpuMsPerRequest: Object.fromEntries(
      Object.entries(cpu).map(([name, use]) => [name, use.msPerOperation]),
    ),
    machineBusy: Object.fromEntries(
      Object.entries(cpu).map(([name, use]) => [name, Number(use.machineBusy.toFixed(2))]),
    ),
    capacity,
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
