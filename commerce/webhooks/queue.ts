import type { EntityManager } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/postgresql';
import pg from 'pg';

/**
 * What the relay (processes/webhook-relay.ts) listens to. Both are sent from inside the
 * transaction that makes the change, so PostgreSQL delivers them only once it commits.
 */
export const webhookChannels = {
  /** An outbox event was appended (a database trigger on outbox_events sends it). */
  outboxAppended: 'tollgate_outbox_appended',
  /** Events of an endpoint were queued (by the relay) or queued again (redelivery, replay,
   * re-enabling): the endpoint's id. */
  eventsQueued: 'tollgate_webhook_events_queued',
} as const;

/** Tells the relay that `endpointId` has events to send, once the transaction commits. */
export async function announceQueued(em: EntityManager, endpointId: string) {
  await (em as SqlEntityManager).execute('select pg_notify(?, ?)', [
    webhookChannels.eventsQueued,
    endpointId,
  ]);
}

/**
 * Lets delivery activities of this process wait for their endpoint's next events instead of
 * ending their round: one LISTEN connection per process, waking the waiters of the endpoint a
 * notification names. Lost notifications cost latency only: waits also end on their timeout.
 */
export class QueuedEventsWatcher {
  private readonly databaseUrl: string;
  private client: pg.Client | undefined;
  private connecting: Promise<void> | undefined;
  private readonly waiters = new Map<string, Set<() => void>>();

  constructor(databaseUrl: string) {
    this.databaseUrl = databaseUrl;
  }

  /** Resolves when events of `endpointId` are queued, after `timeoutMs`, or on `signal`. */
  async waitFor(endpointId: string, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    await this.listening().catch(() => undefined);
    await new Promise<void>((resolve) => {
      const waiting = this.waiters.get(endpointId) ?? new Set();
      this.waiters.set(endpointId, waiting);
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        waiting.delete(done);
        if (waiting.size === 0) this.waiters.delete(endpointId);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      signal?.addEventListener('abort', done, { once: true });
      waiting.add(done);
    });
  }

  async close() {
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private listening(): Promise<void> {
    if (this.client) return Promise.resolve();
    this.connecting ??= (async () => {
      const client = new pg.Client({ connectionString: this.databaseUrl });
      const lost = () => {
        if (this.client === client) this.client = undefined;
      };
      client.on('error', lost);
      client.on('end', lost);
      client.on('notification', ({ payload }) => {
        for (const wake of [...(this.waiters.get(payload ?? '') ?? [])]) wake();
      });
      await client.connect();
      await client.query(`listen ${webhookChannels.eventsQueued}`);
      // Activities have no close hook: this connection must not keep the process alive.
      (
        client as unknown as { connection: { stream: { unref(): void } } }
      ).connection.stream.unref();
      this.client = client;
    })().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }
}
