import type { Client } from '@temporalio/client';
import {
  mailCustomerAboutEvent,
  unreadCustomerMailEvents,
} from '../commerce/customer-notifications/service.ts';
import { webhookChannels } from '../commerce/webhooks/queue.ts';
import type { Logger } from '../config/logger.ts';
import type { Orm } from '../db/orm.ts';
import { CoalescedPass, listenToChannels } from './outbox-listening.ts';
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
  private readonly passes = new CoalescedPass(() => this.relayAll());
  private listener: { close(): Promise<void> } | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(options: CustomerMailRelayOptions) {
    this.options = options;
  }

  async start() {
    this.listener = await listenToChannels({
      databaseUrl: this.options.databaseUrl,
      channels: [webhookChannels.outboxAppended],
      logger: this.options.logger,
      name: 'customer mail relay',
      onNotification: () => this.relay(),
      onListening: () => this.relay(),
    });
    this.timer = setInterval(() => this.relay(), this.options.pollIntervalMs ?? 5_000);
    this.relay();
  }

  async close() {
    clearInterval(this.timer);
    await this.passes.stop();
    await this.listener?.close();
  }

  /** Runs a pass now, or right after the one under way (requests meanwhile coalesce). */
  relay() {
    this.passes.request();
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
      if (events.length === batchSize && !failed) this.relay();
    } catch (error) {
      logger.error({ err: error }, 'customer mail relay pass failed; the poll retries');
    }
  }
}
