import cluster from 'node:cluster';
import { randomUUID } from 'node:crypto';
import {
  AggregatorRegistry,
  Counter,
  collectDefaultMetrics,
  Histogram,
  register,
} from 'prom-client';

/**
 * The metrics Tollgate exports in Prometheus' text format (GET /metrics on the API, and on the
 * worker's metrics port): each process counts in prom-client's default registry, and what it
 * counted is read here. The database gauges are db/metrics.ts, Temporal's own metrics
 * temporal/runtime-metrics.ts; README's "Metrics" lists them all.
 */

/** Every HTTP request: its count is the histogram's `_count`. */
export const httpRequestDuration = new Histogram({
  name: 'tollgate_http_request_duration_seconds',
  help: 'HTTP requests by route template (never the raw path), method and status, and their duration',
  labelNames: ['route', 'method', 'status'],
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
});

/**
 * The business counters, each counted where the change commits (the service answering the API,
 * or the activity of the workflow), once: a step run again that finds its work done counts
 * nothing.
 */
export const businessMetrics = {
  checkoutsStarted: new Counter({
    name: 'tollgate_checkouts_started_total',
    help: 'Checkouts created (API, checkout links)',
  }),
  checkoutsPaid: new Counter({
    name: 'tollgate_checkouts_paid_total',
    help: 'Checkouts that succeeded: their order created and paid (free ones included)',
  }),
  checkoutsFailed: new Counter({
    name: 'tollgate_checkouts_failed_total',
    help: 'Checkout payments declined or abandoned (the buyer may confirm again)',
  }),
  renewalsPaid: new Counter({
    name: 'tollgate_renewals_paid_total',
    help: 'Subscription renewals paid (by the first charge, a dunning retry, the customer or finance)',
  }),
  renewalsFailed: new Counter({
    name: 'tollgate_renewals_failed_total',
    help: 'Renewal charge attempts declined (each dunning attempt counts)',
  }),
  refunds: new Counter({
    name: 'tollgate_refunds_total',
    help: "Refunds settled, by Stripe's final status",
    labelNames: ['status'],
  }),
  webhookDeliveries: new Counter({
    name: 'tollgate_webhook_deliveries_total',
    help: 'Webhook delivery attempts, by outcome (succeeded: a 2xx answer)',
    labelNames: ['outcome'],
  }),
  eventsIngested: new Counter({
    name: 'tollgate_events_ingested_total',
    help: 'Usage events ingested: stored, or skipped as a duplicate of an external_id stored before',
    labelNames: ['result'],
  }),
} as const;

export const metricsContentType = register.contentType;

let processMetricsOn = false;

/** Adds the process' own metrics (CPU, memory, event loop lag, GC): once per process. */
export function collectProcessMetrics(): void {
  if (processMetricsOn) return;
  processMetricsOn = true;
  collectDefaultMetrics();
}

/**
 * A pool of processes (core/process-pool.ts) is scraped as one: prom-client's AggregatorRegistry
 * asks every copy, over the cluster's IPC channel, for its metrics and sums them (gauges as each
 * declares: the database's counts, the same in every copy, are taken once). Made here, at
 * import, so that a copy answers its primary before it is asked.
 */
const poolRegistry = new AggregatorRegistry();

const askPool = 'tollgate:metrics-of-pool';
const poolAnswer = 'tollgate:metrics-of-pool-answer';
interface PoolAnswer {
  type: typeof poolAnswer;
  id: string;
  text?: string;
  error?: string;
}

/**
 * In a pool's primary: answers a copy's request for the whole pool's metrics. The API's copies
 * share one port and each scrape reaches one of them, so the copy asks its primary (which alone
 * can ask every copy) and answers with the pool's sums.
 */
export function answerPoolMetricsRequests(): void {
  cluster.on('message', (worker, message: { type?: string; id?: string }) => {
    if (message?.type !== askPool) return;
    const answer = (fields: Partial<PoolAnswer>) =>
      worker.send({ type: poolAnswer, id: message.id, ...fields });
    poolRegistry.clusterMetrics().then(
      (text) => answer({ text }),
      (error: Error) => answer({ error: error.message }),
    );
  });
}

function metricsOfPool(): Promise<string> {
  const id = randomUUID();
  return new Promise((resolve, reject) => {
    const timeout = setTimeout(() => settle({ error: 'the pool did not answer in time' }), 10_000);
    const settle = (answer: Partial<PoolAnswer>) => {
      clearTimeout(timeout);
      process.off('message', onMessage);
      if (answer.text === undefined) reject(new Error(`metrics of the pool: ${answer.error}`));
      else resolve(answer.text);
    };
    const onMessage = (message: PoolAnswer) => {
      if (message?.type === poolAnswer && message.id === id) settle(message);
    };
    process.on('message', onMessage);
    process.send?.({ type: askPool, id });
  });
}

/**
 * What a scrape answers: this process' metrics, or those of its whole pool when it is one of a
 * pool's copies (asked of the primary) or the primary of one (asked of the copies).
 */
export function metricsText(): Promise<string> {
  if (cluster.isWorker) return metricsOfPool();
  if (Object.keys(cluster.workers ?? {}).length > 0) return poolRegistry.clusterMetrics();
  return register.metrics();
}
