/**
 * Usage benchmark (issue 6):
 *   - ingestion: `clients` concurrent clients posting batches of `batch` events to
 *     /v1/events/ingest for `seconds`: events per second stored (and queryable: the meter's
 *     quantities account for every one), aim 20,000/s;
 *   - meanwhile, GET /v1/customer-meters/{id} of a customer being ingested for: p99 under 20 ms;
 *   - then `events` events (10,000,000) seeded set-based for one month, their rollups built by
 *     the product's own rebuild (the one meter creation runs): meter quantities for that month
 *     by day, p99 under 200 ms.
 *
 *   node bench/ingest.ts [seconds=60] [--clients=8] [--batch=1000] [--events=10000000]
 *     [--customers=100] [--processes=N] [--cpu-prof]
 */
import { mkdirSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { rebuildMeterRollups } from '../commerce/meters/rollups.ts';
import { createMeter } from '../commerce/meters/service.ts';
import { projectRoot } from '../config/env.ts';
import { Meter } from '../db/entities/index.ts';
import type { openOrm } from '../db/orm.ts';
import { benchRun } from './lib/bench-run.ts';
import {
  cpuBound,
  cpuTable,
  postgresBackends,
  serverMsPerOperation,
  startCpuUse,
} from './lib/cpu-use.ts';
import { writeBenchResults } from './lib/results.ts';
import { runLoad } from './lib/run-load.ts';

const flag = (name: string, fallback: number) => {
  const value = process.argv.find((argument) => argument.startsWith(`--${name}=`));
  return value ? Number(value.slice(name.length + 3)) : fallback;
};
const [secondsArgument] = process.argv.slice(2).filter((argument) => !argument.startsWith('--'));
const durationSeconds = Number(secondsArgument ?? 60);
const clients = flag('clients', 8);
const batchSize = flag('batch', 1000);
const seededEvents = flag('events', 10_000_000);
const customerCount = flag('customers', 100);
const apiProcesses = flag('processes', availableParallelism());
const cpuProfile = process.argv.includes('--cpu-prof');
if (![durationSeconds, clients, batchSize, seededEvents, customerCount].every((n) => n > 0)) {
  throw new Error(
    'usage: node bench/ingest.ts [seconds=60] [--clients=8] [--batch=1000] [--events=10000000] [--customers=100]',
  );
}

const warmupSeconds = 2;
/** Connections reading the customer meter during ingestion. */
const readConnections = 4;
const targets = { eventsPerSecond: 20_000, customerMeterP99Ms: 20, quantitiesP99Ms: 200 };
// Seeding runs at some 50,000 rows per second on a quiet machine; the budget allows for less.
const run = benchRun(
  'ingest',
  600 + 3 * (durationSeconds + warmupSeconds) + Math.ceil(seededEvents / 10_000),
);
const { say } = run;
const workDir = join(projectRoot, '.data', 'bench-ingest');
// The seeded month, before the ingestion's "now" so that both stay apart.
const seededMonth = { start: '2025-03-01T00:00:00.000Z', end: '2025-04-01T00:00:00.000Z' };

/** The seller with its customers and the meter the events are accounted to. */
async function seedSeller(databaseUrl: string) {
  const { orm, em, organizationId, token } = await run.seedSeller(databaseUrl);
  await em.getConnection().execute(
    `insert into customers (id, organization_id, external_id, email, email_verified, name, metadata, created_at)
     select gen_random_uuid(), ?, 'bench-' || g, 'customer-' || g || '@ingest.bench', false,
       'Customer ' || g, '{}', now()
     from generate_series(1, ${customerCount}) g`,
    [organizationId],
  );
  // Through the product: the meter the events are accounted to.
  const meter = await createMeter(em, organizationId, {
    name: 'API tokens',
    filter: {
      conjunction: 'and',
      clauses: [{ property: 'name', operator: 'eq', value: 'api_call' }],
    },
    aggregation: { func: 'sum', property: 'tokens' },
  });
  return { orm, organizationId, meterId: meter.id, token };
}

/**
 * Ingest bodies, built once: `batchSize` events each, nine in ten `api_call` with fractional
 * `tokens`, spread over the customers (by external id) and the last hour.
 */
function ingestBodies(count: number, now: number): string[] {
  return Array.from({ length: count }, (_, body) =>
    JSON.stringify({
      events: Array.from({ length: batchSize }, (_, index) => {
        const n = body * batchSize + index;
        return {
          name: n % 10 === 9 ? 'page_view' : 'api_call',
          external_customer_id: `bench-${1 + (n % customerCount)}`,
          timestamp: new Date(now - 1000 - (n % 3_600_000)).toISOString(),
          metadata: { tokens: (n % 1000) / 10, model: `m${n % 7}` },
        };
      }),
    }),
  );
}

interface IngestFigures {
  batches: number;
  eventsAccepted: number;
  batchP50Ms: number;
  batchP99Ms: number;
}

/** `clients` loops posting batches until `until`; answers what the API accepted and how fast. */
async function ingestUntil(apiUrl: string, token: string, bodies: string[], until: number) {
  const latencies: number[] = [];
  let accepted = 0;
  const client = async (offset: number) => {
    for (let k = offset; Date.now() < until; k += clients) {
      const started = performance.now();
      const response = await fetch(`${apiUrl}/v1/events/ingest`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: bodies[k % bodies.length],
      });
      const answer = (await response.json()) as { inserted?: number };
      if (response.status !== 200) {
        throw new Error(
          `ingest answered ${response.status}: ${JSON.stringify(answer).slice(0, 300)}`,
        );
      }
      latencies.push(performance.now() - started);
      accepted += answer.inserted ?? 0;
    }
  };
  await Promise.all(Array.from({ length: clients }, (_, offset) => client(offset)));
  latencies.sort((left, right) => left - right);
  const percentile = (p: number) =>
    Math.round(latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0);
  return {
    batches: latencies.length,
    eventsAccepted: accepted,
    batchP50Ms: percentile(0.5),
    batchP99Ms: percentile(0.99),
  } satisfies IngestFigures;
}

/**
 * `seededEvents` events over the seeded month, written set-based in chunks (time-ordered ids as
 * the product's), then the meter's rollups rebuilt by the product's rebuild.
 */
async function seedMonth(
  orm: Awaited<ReturnType<typeof openOrm>>,
  organizationId: string,
  meterId: string,
) {
  const chunk = 1_000_000;
  const monthSeconds = (Date.parse(seededMonth.end) - Date.parse(seededMonth.start)) / 1000;
  for (let from = 0; from < seededEvents; from += chunk) {
    const to = Math.min(seededEvents, from + chunk);
    await orm.em.fork().transactional(async (tx) => {
      await tx.execute('set local synchronous_commit = off');
      await tx.execute(
        `insert into events (id, organization_id, name, source, "timestamp", customer_id,
           external_customer_id, external_id, metadata, ingested_at)
         select (lpad(to_hex(?::bigint), 12, '0') || '7' || lpad(to_hex(g), 19, '0'))::uuid, ?,
             case when g % 10 = 9 then 'page_view' else 'api_call' end, 'user',
             ?::timestamptz + (g::float8 * ${monthSeconds} / ${seededEvents}) * interval '1 second',
             c.id, c.external_id, null,
             jsonb_build_object('tokens', (g % 1000) / 10.0, 'model', 'm' || (g % 7)), now()
           from generate_series(${from}, ${to - 1}) g
           join (select row_number() over (order by external_id) - 1 as k, id, external_id
                   from customers where organization_id = ?) c on c.k = g % ${customerCount}`,
        [Date.parse(seededMonth.start), organizationId, seededMonth.start, organizationId],
      );
    });
    say(`  ${to.toLocaleString('en')} events`);
  }
  const started = performance.now();
  await orm.em.fork().transactional(async (tx) => {
    const meter = await tx.findOneOrFail(Meter, meterId);
    await rebuildMeterRollups(tx, meter);
  });
  const rollupSeconds = (performance.now() - started) / 1000;
  await orm.em.getConnection().execute('analyze events');
  await orm.em.getConnection().execute('analyze meter_usage_hours');
  return rollupSeconds;
}

/** The stored events in a range, and the meter's total over them, straight from SQL. */
async function storedTokens(
  orm: Awaited<ReturnType<typeof openOrm>>,
  organizationId: string,
  since: string,
  until: string,
) {
  const [row] = await orm.em.getConnection().execute<{ total: string; events: string }[]>(
    `select coalesce(sum((metadata ->> 'tokens')::numeric) filter (where name = 'api_call'), 0)::text
         as total, count(*)::text as events
       from events where organization_id = ? and "timestamp" >= ? and "timestamp" < ?`,
    [organizationId, since, until],
  );
  return { total: Number(row?.total), events: Number(row?.events) };
}

// biome-ignore lint/suspicious/noExplicitAny: the checks read a few fields of the JSON answer
async function getJson(url: string, token: string): Promise<any> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const body = await response.json();
  if (response.status !== 200) {
    throw new Error(`${url} answered ${response.status}: ${JSON.stringify(body).slice(0, 300)}`);
  }
  return body;
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
  say(`seeding a seller with ${customerCount} customers and a meter`);
  const { orm, organizationId, meterId, token } = await seedSeller(stack.addresses.databaseUrl);
  const headers = { authorization: `Bearer ${token}` };
  const postgresPids = postgresBackends(orm);

  // Ingestion, with customer meter reads alongside.
  const ingestStart = new Date(Date.now() - 3_600_000 - 60_000).toISOString();
  const bodies = ingestBodies(32, Date.now());
  say(`warm-up: ${clients} clients, ${warmupSeconds} s`);
  await ingestUntil(apiUrl, token, bodies, Date.now() + warmupSeconds * 1000);
  run.failIfCrashed();
  const [customerMeter] = await orm.em.getConnection().execute<{ id: string }[]>(
    `select cm.id from customer_meters cm join customers c on c.id = cm.customer_id
        where c.organization_id = ? and c.external_id = 'bench-1' and cm.meter_id = ?`,
    [organizationId, meterId],
  );
  if (!customerMeter) throw new Error('ingestion created no customer meter for bench-1');
  const customerMeterUrl = `${apiUrl}/v1/customer-meters/${customerMeter.id}`;
  await getJson(customerMeterUrl, token);
  // The reads alone first: their CPU cost, to tell it apart from ingestion's in the next window.
  const readsAlone = await run.measureWithCpu(
    'customer meter reads (alone)',
    { url: customerMeterUrl, headers, connections: readConnections },
    { warmupSeconds, durationSeconds: Math.min(durationSeconds, 5) },
    postgresPids,
  );
  const before = await storedTokens(orm, organizationId, ingestStart, new Date().toISOString());

  say(
    `ingesting: ${clients} clients, batches of ${batchSize}, ${durationSeconds} s; reading the customer meter alongside`,
  );
  const ingestCpuUse = await startCpuUse(postgresPids);
  const ingestStarted = performance.now();
  const [ingestion, customerMeterReads] = await Promise.all([
    ingestUntil(apiUrl, token, bodies, Date.now() + durationSeconds * 1000),
    runLoad(
      'customer meter reads',
      { url: customerMeterUrl, headers, connections: readConnections, durationSeconds },
      { signal: run.loadAbort.signal },
    ),
  ]);
  const ingestSeconds = (performance.now() - ingestStarted) / 1000;
  // Per 1,000 events accepted; the ingest clients are the bench process, the reads the generator.
  const ingestCpu = await ingestCpuUse.stop(
    ingestion.eventsAccepted / 1000,
    customerMeterReads.cpuMs,
  );
  run.failIfCrashed();
  const after = await storedTokens(orm, organizationId, ingestStart, new Date().toISOString());
  const storedEvents = after.events - before.events;
  // Queryable: the meter's quantities over the ingestion hours account for every stored event.
  const ingestQuantities = await getJson(
    `${apiUrl}/v1/meters/${meterId}/quantities?start_timestamp=${ingestStart}&end_timestamp=${new Date().toISOString()}&interval=hour`,
    token,
  );
  const queryable =
    Math.abs(ingestQuantities.total - after.total) < 1e-6 * Math.max(1, after.total);
  if (!queryable) {
    throw new Error(
      `quantities answered ${ingestQuantities.total}, the events hold ${after.total}`,
    );
  }
  const eventsPerSecond = storedEvents / ingestSeconds;

  // Meter quantities over a seeded month.
  say(`seeding ${seededEvents.toLocaleString('en')} events over ${seededMonth.start.slice(0, 7)}`);
  const seedStarted = performance.now();
  const rollupSeconds = await seedMonth(orm, organizationId, meterId);
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  const quantitiesUrl = `${apiUrl}/v1/meters/${meterId}/quantities?start_timestamp=${seededMonth.start}&end_timestamp=2025-03-31T00:00:00.000Z&interval=day`;
  const month = await storedTokens(orm, organizationId, seededMonth.start, seededMonth.end);
  const answered = await getJson(quantitiesUrl, token);
  if (
    answered.quantities.length !== 31 ||
    Math.abs(answered.total - month.total) > 1e-6 * month.total
  ) {
    throw new Error(
      `quantities answered ${answered.total} over ${answered.quantities.length} days, the events hold ${month.total}`,
    );
  }
  say('measuring meter quantities (one month by day)');
  const { summary: quantities, cpu: quantitiesCpu } = await run.measureWithCpu(
    'meter quantities',
    { url: quantitiesUrl, headers, connections: 1 },
    { warmupSeconds, durationSeconds: Math.min(durationSeconds, 15) },
    postgresPids,
  );
  const loadAfter = loadavg();

  // Cores to reach the aims, from measured CPU ms: ingestion's own server CPU (API, worker,
  // Temporal, PostgreSQL: the window's, less the reads at their cost alone) × 20,000 events/s, the
  // reads at the rate their aim needs: `readConnections` / 20 ms (Little's law: with the
  // connections always waiting, the mean latency is connections / rate, and the p99 above it).
  const readServerMs = serverMsPerOperation(readsAlone.cpu);
  const thousands = ingestion.eventsAccepted / 1000;
  const ingestServerMsPer1000 =
    (serverMsPerOperation(ingestCpu) * thousands - customerMeterReads.requests * readServerMs) /
    thousands;
  const readsNeededPerSecond = readConnections / (targets.customerMeterP99Ms / 1000);
  const ingestionCores = (ingestServerMsPer1000 * (targets.eventsPerSecond / 1000)) / 1000;
  const readCores = (readServerMs * readsNeededPerSecond) / 1000;
  const capacity = {
    'server CPU ms per 1,000 events (reads taken out)': Number(ingestServerMsPer1000.toFixed(1)),
    'server CPU ms per read (reads alone)': Number(readServerMs.toFixed(2)),
    'CPU-bound while ingesting (machine ≥ 90 % busy)': cpuBound(ingestCpu),
    'events/s the cores allow ingestion alone': Math.round(
      (ingestCpu.cores * 1000 * 1000) / ingestServerMsPer1000,
    ),
    [`cores for ${targets.eventsPerSecond} events/s`]: Number(ingestionCores.toFixed(2)),
    [`cores for ${readsNeededPerSecond} reads/s`]: Number(readCores.toFixed(2)),
    'cores to reach the aim (clients apart)': Number((ingestionCores + readCores).toFixed(1)),
  };
  const results = {
    ingestion: { ...ingestion, seconds: ingestSeconds, storedEvents, eventsPerSecond },
    customerMeterReadsAlone: readsAlone.summary,
    customerMeterReads,
    quantities,
    cpuMs: {
      perThousandEventsWhileIngesting: ingestCpu.msPerOperation,
      perReadAlone: readsAlone.cpu.msPerOperation,
      perQuantitiesRead: quantitiesCpu.msPerOperation,
    },
    machineBusy: {
      whileIngesting: Number(ingestCpu.machineBusy.toFixed(2)),
      readsAlone: Number(readsAlone.cpu.machineBusy.toFixed(2)),
      quantities: Number(quantitiesCpu.machineBusy.toFixed(2)),
    },
    capacity,
  };
  const met = {
    ingestion: eventsPerSecond >= targets.eventsPerSecond,
    customerMeterReads: customerMeterReads.latencyP99Ms <= targets.customerMeterP99Ms,
    quantities: quantities.latencyP99Ms <= targets.quantitiesP99Ms,
  };
  console.table({
    'ingest (events/s stored)': {
      value: Math.round(eventsPerSecond),
      'p50 (ms)': ingestion.batchP50Ms,
      'p99 (ms)': ingestion.batchP99Ms,
      target: `>= ${targets.eventsPerSecond}/s`,
      met: met.ingestion ? 'yes' : 'NO',
    },
    'customer meter read (alone, before)': {
      value: `${Math.round(readsAlone.summary.requestsPerSecond)}/s`,
      'p50 (ms)': readsAlone.summary.latencyP50Ms,
      'p99 (ms)': readsAlone.summary.latencyP99Ms,
    },
    'customer meter read (during ingest)': {
      value: `${Math.round(customerMeterReads.requestsPerSecond)}/s`,
      'p50 (ms)': customerMeterReads.latencyP50Ms,
      'p99 (ms)': customerMeterReads.latencyP99Ms,
      target: `p99 <= ${targets.customerMeterP99Ms} ms`,
      met: met.customerMeterReads ? 'yes' : 'NO',
    },
    [`quantities, month by day (${(seededEvents / 1e6).toFixed(1)}M events)`]: {
      value: `${Math.round(quantities.requestsPerSecond)}/s`,
      'p50 (ms)': quantities.latencyP50Ms,
      'p99 (ms)': quantities.latencyP99Ms,
      target: `p99 <= ${targets.quantitiesP99Ms} ms`,
      met: met.quantities ? 'yes' : 'NO',
    },
  });
  say(
    'CPU ms of each process: per 1,000 events while ingesting (the ingest clients are the bench process), per read otherwise',
  );
  console.table(
    cpuTable({
      'ingestion + reads (per 1,000 events)': ingestCpu,
      'customer meter reads alone (per read)': readsAlone.cpu,
      'quantities (per read)': quantitiesCpu,
    }),
  );
  console.table(capacity);
  say(
    `stored ${storedEvents.toLocaleString('en')} events (${ingestion.eventsAccepted.toLocaleString('en')} accepted); seeded in ${seedSeconds.toFixed(0)} s (rollups ${rollupSeconds.toFixed(0)} s); load average before ${loadBefore.map((v) => v.toFixed(2)).join(' ')}, after ${loadAfter.map((v) => v.toFixed(2)).join(' ')}`,
  );
  writeBenchResults('ingest', {
    settings: `NODE_ENV=test LOG_LEVEL=warn, ${apiProcesses} API processes, ${clients} clients × batches of ${batchSize}, ${durationSeconds} s after ${warmupSeconds} s warm-up, ${customerCount} customers`,
    dataset: { seededEvents, customers: customerCount, seedSeconds, rollupSeconds },
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
