import pg from 'pg';
import type { Logger } from '../config/logger.ts';

/**
 * What the outbox relays (webhook-relay.ts, customer-mail-relay.ts) share: a pass over the
 * outbox that runs once at a time, and a PostgreSQL connection that LISTENs for new events.
 */

/**
 * A pass run on request: now, or right after the one under way (requests meanwhile coalesce
 * into one more pass). `run` must not throw (each relay logs its own failures).
 */
export class CoalescedPass {
  private readonly run: () => Promise<void>;
  private pass: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(run: () => Promise<void>) {
    this.run = run;
  }

  request() {
    if (this.stopped) return;
    if (this.pass) {
      this.again = true;
      return;
    }
    this.pass = (async () => {
      do {
        this.again = false;
        await this.run();
      } while (this.again && !this.stopped);
    })().finally(() => {
      this.pass = undefined;
    });
  }

  /** No pass starts from now on; resolves when the one under way ended. */
  async stop() {
    this.stopped = true;
    await this.pass;
  }
}

export interface ChannelListenerOptions {
  databaseUrl: string;
  channels: string[];
  logger: Logger;
  /** Who listens, for the log line of a lost connection. */
  name: string;
  onNotification: (channel: string, payload: string | undefined) => void;
  /**
   * After each (re)connection: notifications are not kept while nobody listens, so what was
   * committed meanwhile is read now.
   */
  onListening: () => void;
}

/**
 * One connection listening to `channels`, reconnected a second after it is lost (the relay's
 * poll covers the gap). Resolves once the first connection was tried.
 */
export async function listenToChannels(
  options: ChannelListenerOptions,
): Promise<{ close(): Promise<void> }> {
  let closed = false;
  let current: pg.Client | undefined;

  const connect = async () => {
    const client = new pg.Client({ connectionString: options.databaseUrl });
    current = client;
    client.on('notification', ({ channel, payload }) => options.onNotification(channel, payload));
    const lost = (error?: Error) => {
      if (closed || current !== client) return;
      current = undefined;
      client.end().catch(() => undefined);
      options.logger.warn(
        { err: error },
        `${options.name} lost its notifications; reconnecting (the poll covers meanwhile)`,
      );
      setTimeout(() => {
        if (!closed) void connect();
      }, 1000).unref();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    try {
      await client.connect();
      for (const channel of options.channels) await client.query(`listen ${channel}`);
    } catch (error) {
      lost(error as Error);
      return;
    }
    options.onListening();
  };

  await connect();
  return {
    async close() {
      closed = true;
      await current?.end().catch(() => undefined);
    },
  };
}
