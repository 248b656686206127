import type { EntityManager } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/postgresql';
import pg from 'pg';
import type { Logger } from '../config/logger.ts';

/** What changed, as the channel name PostgreSQL carries it on. */
export const changeTopics = {
  /** A seller's catalog (products, prices, and what products embed): the key is the organization. */
  catalog: 'tollgate_catalog_changed',
  /** An organization access token was revoked or changed: the key is the token's hash. */
  accessToken: 'tollgate_access_token_changed',
  /**
   * What a customer has (state view: grants, meters, subscriptions): the key is
   * `<organization id>/<customer id>`, or the organization id alone for many of its customers.
   */
  customerState: 'tollgate_customer_state_changed',
} as const;
export type ChangeTopic = keyof typeof changeTopics;

/** The listeners of this process, told of its own changes at once (see announceChange). */
const listenersHere = new Set<ChangeListener>();

/**
 * Announces a change from inside the transaction that makes it: PostgreSQL delivers NOTIFY to
 * every listening process when (and only if) the transaction commits. This process is also told
 * at once, so that the request after a write never finds what its own cache held before it.
 */
export async function announceChange(em: EntityManager, topic: ChangeTopic, key: string) {
  await (em as SqlEntityManager).execute('select pg_notify(?, ?)', [changeTopics[topic], key]);
  announcedHere(topic, key);
}

/**
 * Tells this process's listeners of a change a statement of its own announced to the others
 * (`pg_notify(changeTopics[topic], key)` in the statement that writes it).
 */
export function announcedHere(topic: ChangeTopic, key: string) {
  for (const listener of listenersHere) listener.dispatch(topic, key);
}

type ChangeHandler = (topic: ChangeTopic, key: string) => void;

const reconnectDelayMs = 1000;

/**
 * One connection per process that LISTENs to every change topic and hands each notification
 * to the handlers. Caches built on it must only serve while `connected` is true: while the
 * connection is down nothing tells them of changes, so they are dropped (`onReset`) and bypassed.
 */
export class ChangeListener {
  connected = false;
  /** The PostgreSQL backend of the listening connection, while connected (for diagnostics). */
  backendPid: number | undefined;
  private client: pg.Client | undefined;
  private closed = false;
  private readonly handlers: ChangeHandler[] = [];
  private readonly resetHandlers: (() => void)[] = [];
  private readonly databaseUrl: string;
  private readonly logger: Logger;

  constructor(databaseUrl: string, logger: Logger) {
    this.databaseUrl = databaseUrl;
    this.logger = logger;
  }

  onChange(handler: ChangeHandler) {
    this.handlers.push(handler);
  }

  /** Called whenever notifications may have been missed (disconnects). */
  onReset(handler: () => void) {
    this.resetHandlers.push(handler);
  }

  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.databaseUrl });
    this.client = client;
    const byChannel = new Map<string, ChangeTopic>(
      Object.entries(changeTopics).map(([topic, channel]) => [channel, topic as ChangeTopic]),
    );
    client.on('notification', ({ channel, payload }) => {
      const topic = byChannel.get(channel);
      if (topic && payload !== undefined) this.dispatch(topic, payload);
    });
    client.on('error', (error) => this.lost(error));
    client.on('end', () => this.lost());
    await client.connect();
    for (const channel of Object.values(changeTopics)) await client.query(`listen ${channel}`);
    const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
    this.backendPid = rows[0]?.pid;
    this.connected = true;
    listenersHere.add(this);
  }

  dispatch(topic: ChangeTopic, key: string) {
    for (const handler of this.handlers) handler(topic, key);
  }

  private lost(error?: Error) {
    if (!this.connected && this.client === undefined) return;
    this.connected = false;
    this.client = undefined;
    for (const reset of this.resetHandlers) reset();
    if (this.closed) return;
    this.logger.warn({ err: error }, 'change notifications lost; reconnecting');
    setTimeout(() => {
      if (!this.closed) this.start().catch((failure) => this.lost(failure));
    }, reconnectDelayMs).unref();
  }

  async close() {
    this.closed = true;
    listenersHere.delete(this);
    this.connected = false;
    await this.client?.end().catch(() => undefined);
  }
}
