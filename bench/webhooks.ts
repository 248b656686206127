/**
 * Webhooks benchmark (issue 7), against the test stack's worker process (its relay and
 * delivery workflows, as deployed), with 10 local receivers, one endpoint each:
 *   - throughput: 10,000 events committed at once (1,000 per endpoint): deliveries per second
 *     from the first commit to the last delivery;
 *   - latency under steady load: `rate` events per second, each in its own transaction, for
 *     `seconds`: p50/p99 from the event's commit to its arrival at the receiver (target p99 < 1 s).
 *
 *   node bench/webhooks.ts [seconds=20] [rate=100]
 */
import { loadavg } from 'node:os';
import { appendEvent } from '../commerce/outbox.ts';
import { generateWebhookSecret } from '../commerce/webhooks/signing.ts';
import { startReceiver } from '../commerce/webhooks/testing.ts';
import { Organization, WebhookEndpoint } from '../db/entities/index.ts';
import { openOrm } from '../db/orm.ts';
import { eventually } from '../devstack/eventually.ts';
import { benchRun } from './lib/bench-run.ts';
import { writeBenchResults } from './lib/results.ts';

const [secondsArgument, rateArgument] = process.argv.slice(2);
const steadySeconds = Number(secondsArgument ?? 20);
const steadyRate = Number(rateArgument ?? 100);
if (!(steadySeconds > 0 && steadyRate > 0)) {
  throw new Error('usage: node bench/webhooks.ts [seconds=20] [rate=100]');
}
const endpointCount = 10;
const burstEvents = 10_000;
const targets = { steadyP99Ms: 1000 };

const run = benchRun('webhooks', 600 + 2 * steadySeconds);
const { say } = run;

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;

try {
  const loadBefore = loadavg();
  say('starting the test stack (its worker process runs the relay and the deliveries)');
  const stack = await run.startStack();
  const orm = await openOrm(stack.addresses.databaseUrl);
  run.closeOnCleanUp(() => orm.close());

  // The receivers note when each event (by its `seq`) arrived.
  const arrivals = new Map<number, number>();
  let delivered = 0;
  const receivers = await Promise.all(
    Array.from({ length: endpointCount }, () =>
      startReceiver((webhook, response) => {
        const seq = JSON.parse(webhook.body).data.seq as number;
        if (!arrivals.has(seq)) {
          arrivals.set(seq, performance.now());
          delivered++;
        }
        response.end();
      }),
    ),
  );
  for (const receiver of receivers) run.closeOnCleanUp(() => receiver.close());

  const em = orm.em.fork();
  const organizations = receivers.map((receiver, index) => {
    const organization = em.create(Organization, {
      name: `Webhook bench ${index}`,
      slug: `webhook-bench-${index}`,
    });
    em.create(WebhookEndpoint, {
      organization,
      url: receiver.url,
      format: 'raw',
      events: ['product.updated'],
      secret: generateWebhookSecret(),
    });
    return organization.id;
  });
  await em.flush();

  const waitForDeliveries = (count: number, timeoutMs: number) =>
    eventually(
      () => delivered,
      (done) => done >= count,
      { what: `${count} deliveries`, timeoutMs, intervalMs: 20 },
    );

  // Throughput: every event committed at once, one transaction per endpoint's thousand.
  say(`throughput: ${burstEvents} events to ${endpointCount} endpoints`);
  const burstStarted = performance.now();
  await Promise.all(
    organizations.map((organizationId, index) =>
      orm.em.fork().transactional(async (tx) => {
        const perEndpoint = burstEvents / endpointCount;
        for (let n = 0; n < perEndpoint; n++) {
          const seq = index * perEndpoint + n;
          appendEvent(tx, organizationId, 'product.updated', { id: `p${seq}`, seq });
        }
      }),
    ),
  );
  const burstCommitted = performance.now();
  await waitForDeliveries(burstEvents, 300_000);
  const burstSeconds = (performance.now() - burstStarted) / 1000;
  const deliveriesPerSecond = burstEvents / burstSeconds;
  say(`throughput: ${Math.round(deliveriesPerSecond)} deliveries/s`);

  // Latency under steady load: events one by one, round robin over the endpoints.
  say(`steady load: ${steadyRate} events/s for ${steadySeconds} s`);
  const committedAt = new Map<number, number>();
  const steadyTotal = Math.round(steadyRate * steadySeconds);
  const steadyStarted = performance.now();
  const writes: Promise<void>[] = [];
  for (let n = 0; n < steadyTotal; n++) {
    const due = steadyStarted + (n * 1000) / steadyRate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const seq = burstEvents + n;
    const organizationId = organizations[n % endpointCount] as string;
    writes.push(
      orm.em
        .fork()
        .transactional(async (tx) => {
          appendEvent(tx, organizationId, 'product.updated', { id: `p${seq}`, seq });
        })
        .then(() => {
          committedAt.set(seq, performance.now());
        }),
    );
  }
  await Promise.all(writes);
  await waitForDeliveries(burstEvents + steadyTotal, 120_000);
  const latencies = [...committedAt]
    .map(([seq, committed]) => (arrivals.get(seq) as number) - committed)
    .sort((a, b) => a - b);
  const steady = {
    events: steadyTotal,
    latencyP50Ms: Math.round(percentile(latencies, 50)),
    latencyP99Ms: Math.round(percentile(latencies, 99)),
    latencyMaxMs: Math.round(latencies.at(-1) ?? Number.NaN),
  };
  const loadAfter = loadavg();

  console.table({
    [`burst: ${burstEvents} events, ${endpointCount} endpoints`]: {
      'deliveries/s': Math.round(deliveriesPerSecond),
      'p50 (ms)': '',
      'p99 (ms)': '',
      target: '',
      met: '',
    },
    [`steady: ${steadyRate}/s for ${steadySeconds} s`]: {
      'deliveries/s': steadyRate,
      'p50 (ms)': steady.latencyP50Ms,
      'p99 (ms)': steady.latencyP99Ms,
      target: `p99 < ${targets.steadyP99Ms} ms`,
      met: steady.latencyP99Ms < targets.steadyP99Ms ? 'yes' : 'NO',
    },
  });
  writeBenchResults('webhooks', {
    settings: `test stack worker process, ${endpointCount} endpoints on local receivers`,
    targets,
    burst: {
      events: burstEvents,
      commitSeconds: (burstCommitted - burstStarted) / 1000,
      seconds: burstSeconds,
      deliveriesPerSecond,
    },
    steady: { ratePerSecond: steadyRate, seconds: steadySeconds, ...steady },
    met: { steadyP99: steady.latencyP99Ms < targets.steadyP99Ms },
    loadAverage: { before: loadBefore, after: loadAfter },
    measuredAt: new Date().toISOString(),
  });
} catch (error) {
  process.exitCode = 1;
  say(error instanceof Error ? (error.stack ?? error.message) : String(error));
} finally {
  await run.cleanUp();
}
