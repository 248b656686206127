import type { Client } from '@temporalio/client';
import type pg from 'pg';
import { webhookBody } from '../commerce/webhooks/payloads.ts';
import { webhookChannels } from '../commerce/webhooks/queue.ts';
import type { Logger } from '../config/logger.ts';
import { connectionPool } from '../db/connection-pool.ts';
import type { WebhookFormat } from '../db/entities/webhook.ts';
import { newId } from '../db/ids.ts';
import type { WebhookDeliverySettings } from '../domain/webhooks.ts';
import { CoalescedPass, listenToChannels } from './outbox-listening.ts';
import { wakeWebhookEndpoint } from './starters.ts';

export interface WebhookRelayOptions {
  databaseUrl: string;
  temporal: Client;
  logger: Logger;
  /** Where endpoint workflows run, and where their delivery activities run. */
  workflowTaskQueue: string;
  deliveryTaskQueue: string;
  settings: WebhookDeliverySettings;
  /** The safety net: how often the outbox is read without being told (missed notifications). */
  pollIntervalMs?: number;
  /** How often endpoints whose next delivery is overdue are woken (a lost signal or start). */
  sweepIntervalMs?: number;
}

const batchSize = 500;
// An endpoint's oldest event is "overdue" this long after it fell due with nothing sending it.
const overdueAfter = '1 minute';
// Relay passes of every process take turns (transaction-level advisory lock): one pass at a
// time keeps queue order equal to outbox order.
export const relayLockKey = 7_117_001;
// The least time between two wake-ups of one endpoint's workflow (see `wake`).
const wakeIntervalMs = 1_000;

interface OutboxRow {
  id: string;
  organization_id: string;
  type: string;
  data: Record<string, unknown>;
  /** Microseconds kept (text): the queue order of the endpoint. */
  created_at: string;
}

interface EndpointRow {
  id: string;
  organization_id: string;
  format: WebhookFormat;
  events: string[];
}

/**
 * Turns committed outbox events into webhook events, one per enabled endpoint subscribed to the
 * event's type, with its payload fixed, and marks them relayed in the same transaction; then
 * wakes those endpoints' delivery workflows (workflows/webhook-endpoint.ts).
 *
 * It runs in the worker process: that process already holds the Temporal client and is the one
 * that must be up for anything to be delivered, while API processes come and go and are many.
 * Several relays (several workers) are safe: their passes take turns. It is told of new events
 * by PostgreSQL (NOTIFY from the inserting transaction, see the migration's trigger), so an
 * event is queued milliseconds after its commit; a poll catches notifications missed while the
 * listening connection was down, and a sweep wakes endpoints whose workflow was lost.
 */
export class WebhookRelay {
  private readonly options: WebhookRelayOptions;
  private pool: pg.Pool | undefined;
  private listener: { close(): Promise<void> } | undefined;
  private timers: NodeJS.Timeout[] = [];
  private closed = false;
  private readonly passes = new CoalescedPass(async () => {
    try {
      await this.relayAll();
    } catch (error) {
      this.options.logger.error({ err: error }, 'webhook relay pass failed; the poll retries');
    }
  });
  private readonly lastWoken = new Map<string, number>();
  private readonly pendingWakes = new Map<string, NodeJS.Timeout>();

  constructor(options: WebhookRelayOptions) {
    this.options = options;
  }

  async start() {
    this.pool = connectionPool({ connectionString: this.options.databaseUrl, max: 2 }, (error) =>
      this.options.logger.warn({ err: error }, 'relay pool'),
    );
    this.listener = await listenToChannels({
      databaseUrl: this.options.databaseUrl,
      channels: [webhookChannels.outboxAppended, webhookChannels.eventsQueued],
      logger: this.options.logger,
      name: 'webhook relay',
      onNotification: (channel, payload) => {
        if (channel === webhookChannels.outboxAppended) this.relay();
        else if (channel === webhookChannels.eventsQueued && payload) void this.wake([payload]);
      },
      // Whatever was committed while not listening.
      onListening: () => this.relay(),
    });
    const { pollIntervalMs = 5_000, sweepIntervalMs = 30_000 } = this.options;
    this.timers.push(
      setInterval(() => this.relay(), pollIntervalMs),
      setInterval(() => void this.sweep(), sweepIntervalMs),
    );
    this.relay();
  }

  async close() {
    this.closed = true;
    for (const timer of this.timers) clearInterval(timer);
    for (const timer of this.pendingWakes.values()) clearTimeout(timer);
    await this.passes.stop();
    await this.listener?.close();
    await this.pool?.end();
  }

  /** Runs a relay pass now, or right after the one under way (requests meanwhile coalesce). */
  relay() {
    this.passes.request();
  }

  private async relayAll() {
    for (;;) {
      const { relayed, endpointIds } = await this.relayBatch();
      await this.wake(endpointIds);
      if (relayed < batchSize || this.closed) return;
    }
  }

  /** One transaction: up to `batchSize` outbox events queued for their endpoints, relayed. */
  private async relayBatch(): Promise<{ relayed: number; endpointIds: string[] }> {
    const client = await this.requirePool().connect();
    try {
      await client.query(`begin; select pg_advisory_xact_lock(${relayLockKey})`);
      // Never `skip locked`: a row skipped because another transaction holds it (a mail relay's
      // claim references it, taking a key-share lock) would let a newer event overtake it.
      // `no key update` does not wait on key-share locks, and passes already take turns.
      const { rows: events } = await client.query<OutboxRow>(
        `select id, organization_id, type, data,
           to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created_at
         from outbox_events where relayed_at is null
         order by outbox_events.created_at, id limit $1 for no key update`,
        [batchSize],
      );
      if (events.length === 0) {
        await client.query('commit');
        return { relayed: 0, endpointIds: [] };
      }
      const organizations = [...new Set(events.map((event) => event.organization_id))];
      const { rows: endpoints } = await client.query<EndpointRow>(
        `select id, organization_id, format, events from webhook_endpoints
         where enabled and organization_id = any($1::uuid[])`,
        [organizations],
      );
      const queued = events.flatMap((event) =>
        endpoints
          .filter(
            (e) => e.organization_id === event.organization_id && e.events.includes(event.type),
          )
          .map((endpoint) => ({
            id: newId(),
            endpoint_id: endpoint.id,
            outbox_event_id: event.id,
            type: event.type,
            payload: webhookBody(endpoint.format, event.type, event.created_at, event.data),
            created_at: event.created_at,
          })),
      );
      const endpointIds = [...new Set(queued.map((row) => row.endpoint_id))];
      // One statement: the queued events, the outbox rows relayed, and a notification per
      // endpoint for delivery rounds waiting on it (QueuedEventsWatcher), sent on commit.
      await client.query(
        `with queued as (
           insert into webhook_events
             (id, endpoint_id, outbox_event_id, type, payload, attempts, is_archived, created_at)
           select q.id, q.endpoint_id, q.outbox_event_id, q.type, q.payload, 0, false, q.created_at
           from json_to_recordset($1::json) as q(id uuid, endpoint_id uuid, outbox_event_id uuid,
             type text, payload text, created_at timestamptz)
           on conflict (endpoint_id, outbox_event_id) do nothing
         ), relayed as (
           update outbox_events set relayed_at = now() where id = any($2::uuid[])
         )
         select pg_notify($3, id) from unnest($4::text[]) id`,
        [
          JSON.stringify(queued),
          events.map((event) => event.id),
          webhookChannels.eventsQueued,
          endpointIds,
        ],
      );
      await client.query('commit');
      return { relayed: events.length, endpointIds };
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /**
   * Tells each endpoint's workflow it has events (starting it when it is not running), at most
   * once per `wakeIntervalMs` per endpoint: a later request in the interval is sent at its end.
   * Under steady traffic the workflow's delivery round is usually still running and waiting
   * for events itself (QueuedEventsWatcher), so each event costing a signal and a workflow task
   * would only load Temporal; an idle endpoint is woken at once.
   */
  private async wake(endpointIds: string[]) {
    const now = Date.now();
    const due: string[] = [];
    for (const endpointId of endpointIds) {
      const last = this.lastWoken.get(endpointId) ?? 0;
      if (now - last >= wakeIntervalMs) {
        this.lastWoken.set(endpointId, now);
        due.push(endpointId);
      } else if (!this.pendingWakes.has(endpointId)) {
        const timer = setTimeout(
          () => {
            this.pendingWakes.delete(endpointId);
            void this.wake([endpointId]);
          },
          last + wakeIntervalMs - now,
        );
        this.pendingWakes.set(endpointId, timer);
      }
    }
    // Forget endpoints not woken lately, so the map stays as small as the active set.
    for (const [endpointId, last] of this.lastWoken) {
      if (now - last > 60_000) this.lastWoken.delete(endpointId);
    }
    await this.signal(due);
  }

  private async signal(endpointIds: string[]) {
    const { temporal, workflowTaskQueue, deliveryTaskQueue, settings, logger } = this.options;
    await Promise.all(
      endpointIds.map((endpointId) =>
        wakeWebhookEndpoint(
          temporal,
          { endpointId, settings, deliveryTaskQueue },
          workflowTaskQueue,
        ).catch((error) => {
          // The sweep wakes it later: its events stay queued in the database.
          logger.warn({ err: error, endpointId }, 'could not wake a webhook endpoint workflow');
        }),
      ),
    );
  }

  /** Wakes enabled endpoints whose oldest undelivered event is overdue: their wake-up was lost. */
  private async sweep() {
    if (this.closed) return;
    try {
      const { rows } = await this.requirePool().query<{ endpoint_id: string }>(
        `select heads.endpoint_id from (
           select distinct on (endpoint_id) endpoint_id,
             coalesce(next_attempt_at, created_at) as due
           from webhook_events where succeeded is null
           order by endpoint_id, created_at, id
         ) heads join webhook_endpoints e on e.id = heads.endpoint_id
         where e.enabled and heads.due < now() - interval '${overdueAfter}'`,
      );
      await this.signal(rows.map((row) => row.endpoint_id));
    } catch (error) {
      this.options.logger.warn({ err: error }, 'webhook sweep failed');
    }
  }

  private requirePool(): pg.Pool {
    if (!this.pool) throw new Error('WebhookRelay.start() first');
    return this.pool;
  }
}
