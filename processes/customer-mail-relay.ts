import type { Client } from '@temporalio/client';
import pg from 'pg';
import {
  mailCustomerAboutEvent,
  unreadCustomerMailEvents,
} from '../commerce/customer-notifications/service.ts';
import { webhookChannels } from '../commerce/webhooks/queue.ts';
import type { Logger } from '../config/logger.ts';
import type { Orm } from '../db/orm.ts';
import { sendCustomerEmail } from './starters.ts';

export interface CustomerMailRelayOptions {
  databaseUrl: string;
  orm: Orm;
  temporal: Client;
  logger: Logger;
  publicUrl: string;
  /** The safety net: how often the outbox is read without being told. */
  pollIntervalMs?: number;
}

const batchSize = 200;

/**
 * Mails customers about the outbox events that concern them (a paid order's receipt, a
 * subscription started, canceled or recovered; commerce/customer-notifications), and the
 * seller's owners and admins when a renewal's dunning starts and ends
 * (commerce/seller-notifications), each mail through its own sendEmail workflow. Like the webhook relay it runs in the worker process, told of new
 * events by the same PostgreSQL notification, with a poll for those it missed. Several relays
 * are safe: each event is read in a transaction that marks it read, and each mail is claimed by
 * its id before it is started.
 */
export class CustomerMailRelay {
  private readonly options: CustomerMailRelayOptions;
  private listener: pg.Client | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private pass: Promise<void> | undefined;
  private passAgain = false;

  constructor(options: CustomerMailRelayOptions) {
    this.options = options;
  }

  async start() {
    await this.listen();
    this.timer = setInterval(() => this.relay(), this.options.pollIntervalMs ?? 5_000);
    this.relay();
  }

  async close() {
    this.closed = true;
    clearInterval(this.timer);
    await this.pass;
    await this.listener?.end().catch(() => undefined);
  }

  /** Runs a pass now, or right after the one under way (requests meanwhile coalesce). */
  relay() {
    if (this.closed) return;
    if (this.pass) {
      this.passAgain = true;
      return;
    }
    this.pass = (async () => {
      do {
        this.passAgain = false;
        await this.relayAll();
      } while (this.passAgain && !this.closed);
    })().finally(() => {
      this.pass = undefined;
    });
  }

  private async relayAll() {
    const { orm, temporal, logger, publicUrl } = this.options;
    const deliver = (message: Parameters<typeof sendCustomerEmail>[1]) =>
      sendCustomerEmail(temporal, message);
    try {
      const events = await unreadCustomerMailEvents(orm.em.fork(), batchSize);
      let failed = false;
      for (const event of events) {
        // One event failing (Temporal away) stays unread for a later pass, not the rest.
        await mailCustomerAboutEvent(orm.em, event, { publicUrl, deliver }).catch(
          (error: unknown) => {
            failed = true;
            logger.warn({ err: error, eventId: event.id }, 'customer mail not sent; retried');
          },
        );
      }
      // A full batch may have more behind it; after a failure, the poll tries again.
      if (events.length === batchSize && !failed) this.passAgain = true;
    } catch (error) {
      logger.error({ err: error }, 'customer mail relay pass failed; the poll retries');
    }
  }

  private async listen() {
    const client = new pg.Client({ connectionString: this.options.databaseUrl });
    this.listener = client;
    client.on('notification', ({ channel }) => {
      if (channel === webhookChannels.outboxAppended) this.relay();
    });
    const lost = (error?: Error) => {
      if (this.closed || this.listener !== client) return;
      this.listener = undefined;
      client.end().catch(() => undefined);
      this.options.logger.warn(
        { err: error },
        'customer mail relay reconnecting (the poll covers)',
      );
      setTimeout(() => {
        if (!this.closed) void this.listen();
      }, 1000).unref();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    try {
      await client.connect();
      await client.query(`listen ${webhookChannels.outboxAppended}`);
    } catch (error) {
      lost(error as Error);
      return;
    }
    this.relay();
  }
}
