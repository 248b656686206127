import { Migration } from '@mikro-orm/migrations';

/**
 * Hand-written (MikroORM's schema diff knows neither triggers nor partial indexes):
 * - every insert into the outbox notifies the webhook relay, from the inserting transaction, so
 *   PostgreSQL tells the relay when (and only if) it commits (commerce/webhooks/relay.ts);
 * - an outbox row's created_at is the database clock at insert, in microseconds: events appended
 *   by one transaction (order.created, then order.paid) keep their order, which the
 *   millisecond JavaScript clock would leave to chance;
 * - each endpoint's queue of undelivered events, read in order by its delivery workflow.
 */
export class Migration20261122203000_webhook_relay extends Migration {
  override name = 'Migration20261122203000_webhook_relay';

  override up(): void | Promise<void> {
    this.addSql(
      `create function "outbox_events_stamp_created_at"() returns trigger language plpgsql as $$ begin new.created_at := clock_timestamp(); return new; end $$;`,
    );
    this.addSql(
      `create trigger "outbox_events_stamp_created_at" before insert on "outbox_events" for each row execute function "outbox_events_stamp_created_at"();`,
    );
    this.addSql(
      `create function "outbox_events_notify_relay"() returns trigger language plpgsql as $$ begin perform pg_notify('tollgate_outbox_appended', ''); return null; end $$;`,
    );
    this.addSql(
      `create trigger "outbox_events_notify_relay" after insert on "outbox_events" for each statement execute function "outbox_events_notify_relay"();`,
    );
    this.addSql(
      `create index "webhook_events_pending_index" on "webhook_events" ("endpoint_id", "created_at", "id") where "succeeded" is null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "webhook_events_pending_index";`);
    this.addSql(`drop trigger "outbox_events_notify_relay" on "outbox_events";`);
    this.addSql(`drop function "outbox_events_notify_relay"();`);
    this.addSql(`drop trigger "outbox_events_stamp_created_at" on "outbox_events";`);
    this.addSql(`drop function "outbox_events_stamp_created_at"();`);
  }
}
