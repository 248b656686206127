import { Gauge } from 'prom-client';
import type { Orm } from './orm.ts';

/**
 * Gauges read from the database when scraped (core/metrics.ts has the counters): the connection
 * pool of each ORM this process observes, and counts of what waits (subscriptions in dunning,
 * undelivered webhook events). In a pool of processes the pools add up and the counts, the same
 * read by every copy, are taken once (`aggregator: 'max'`).
 */
const observed = new Set<Orm>();

/** Counts the ORM's connection pool and reads the database's counts while it is open. */
export function observeDatabase(orm: Orm): () => void {
  observed.add(orm);
  return () => observed.delete(orm);
}

/** The pg pools of the observed ORMs (MikroORM's driver owns them). */
const poolsOf = () =>
  Promise.all([...observed].map((orm) => orm.em.getConnection().getNativeClient()));

/** The ORM the counts are read with: the latest observed (one per process in production). */
const reader = () => [...observed].at(-1);

new Gauge({
  name: 'tollgate_db_pool_connections',
  help: 'Database pool connections: in use by a query or transaction, or idle',
  labelNames: ['state'],
  async collect() {
    const pools = await poolsOf();
    const total = (count: (pool: (typeof pools)[number]) => number) =>
      pools.reduce((sum, pool) => sum + count(pool), 0);
    this.set(
      { state: 'idle' },
      total((pool) => pool.idleCount),
    );
    this.set(
      { state: 'in_use' },
      total((pool) => pool.totalCount - pool.idleCount),
    );
  },
});

new Gauge({
  name: 'tollgate_db_pool_waiting_requests',
  help: 'Queries and transactions waiting for a database pool connection',
  async collect() {
    const pools = await poolsOf();
    this.set(pools.reduce((sum, pool) => sum + pool.waitingCount, 0));
  },
});

new Gauge({
  name: 'tollgate_dunning_open_subscriptions',
  help: 'Subscriptions past due: a renewal failed and dunning retries it',
  aggregator: 'max',
  async collect() {
    const orm = reader();
    if (!orm) return;
    const [row] = await orm.em
      .getConnection()
      .execute<{ count: number }[]>(
        `select count(*)::int as count from subscriptions where status = 'past_due'`,
      );
    this.set(row?.count ?? 0);
  },
});

new Gauge({
  name: 'tollgate_webhook_backlog_events',
  help: 'Webhook events not yet delivered, by whether their endpoint is enabled (disabled ones keep theirs until enabled again)',
  labelNames: ['endpoint'],
  aggregator: 'max',
  async collect() {
    const backlog = await webhookBacklog();
    if (!backlog) return;
    this.set({ endpoint: 'enabled' }, backlog.enabled.events);
    this.set({ endpoint: 'disabled' }, backlog.disabled.events);
  },
});

new Gauge({
  name: 'tollgate_webhook_backlog_oldest_seconds',
  help: 'Age of the oldest webhook event waiting for an enabled endpoint (0: none waits)',
  aggregator: 'max',
  async collect() {
    const backlog = await webhookBacklog();
    if (backlog) this.set(backlog.enabled.oldestSeconds);
  },
});

/** Undelivered events by endpoint state, read once per scrape (both gauges ask within it). */
let backlogRead: { at: number; result: Promise<WebhookBacklog | undefined> } | undefined;

interface WebhookBacklog {
  enabled: { events: number; oldestSeconds: number };
  disabled: { events: number; oldestSeconds: number };
}

function webhookBacklog(): Promise<WebhookBacklog | undefined> {
  if (backlogRead && Date.now() - backlogRead.at < 1000) return backlogRead.result;
  backlogRead = { at: Date.now(), result: readWebhookBacklog() };
  return backlogRead.result;
}

async function readWebhookBacklog(): Promise<WebhookBacklog | undefined> {
  const orm = reader();
  if (!orm) return undefined;
  // The partial index of undelivered events (webhook_events_pending_index) serves this.
  const rows = await orm.em
    .getConnection()
    .execute<{ enabled: boolean; events: number; oldest_seconds: number }[]>(
      `select w.enabled, count(*)::int as events,
       extract(epoch from now() - min(e.created_at))::float8 as oldest_seconds
     from webhook_events e join webhook_endpoints w on w.id = e.endpoint_id
     where e.succeeded is null
     group by w.enabled`,
    );
  const of = (enabled: boolean) => {
    const row = rows.find((candidate) => candidate.enabled === enabled);
    return { events: row?.events ?? 0, oldestSeconds: row?.oldest_seconds ?? 0 };
  };
  return { enabled: of(true), disabled: of(false) };
}
