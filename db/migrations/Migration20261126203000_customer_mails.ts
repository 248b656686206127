import { Migration } from '@mikro-orm/migrations';

/**
 * Customer mails: which the organization sends (`customer_email_settings`), each mail sent once
 * (`customer_mails`, by its stable id), the outbox events the mail relay has read
 * (`customer_mail_events`; the events already there count as read, so nobody is mailed about
 * old orders), and the cards already checked for expiry before a renewal.
 */
export class Migration20261126203000_customer_mails extends Migration {
  override name = 'Migration20261126203000_customer_mails';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "organizations" add "customer_email_settings" jsonb not null default '{"orderConfirmation":true,"subscriptionConfirmation":true,"subscriptionCancellation":true,"trialEnding":true,"renewalReminder":true,"paymentRecovered":true,"cardExpiring":true}';`,
    );
    this.addSql(
      `create table "customer_mails" ("id" varchar(255) not null, "customer_id" uuid not null, "kind" varchar(64) not null, "created_at" timestamptz not null default now(), primary key ("id"));`,
    );
    this.addSql(
      `create index "customer_mails_customer_id_index" on "customer_mails" ("customer_id");`,
    );
    this.addSql(
      `alter table "customer_mails" add constraint "customer_mails_customer_id_foreign" foreign key ("customer_id") references "customers" ("id") on delete cascade;`,
    );
    this.addSql(
      `create table "customer_mail_events" ("event_id" uuid not null, "handled_at" timestamptz not null default now(), primary key ("event_id"));`,
    );
    this.addSql(
      `alter table "customer_mail_events" add constraint "customer_mail_events_event_id_foreign" foreign key ("event_id") references "outbox_events" ("id") on delete cascade;`,
    );
    this.addSql(
      `create index "outbox_events_type_created_at_index" on "outbox_events" ("type", "created_at");`,
    );
    this.addSql(
      `insert into "customer_mail_events" ("event_id") select "id" from "outbox_events" where "type" in ('order.paid', 'subscription.created', 'subscription.canceled', 'subscription.active');`,
    );
    this.addSql(
      `create table "card_expiry_checks" ("subscription_id" uuid not null, "payment_method_id" varchar(255) not null, "renews_at" timestamptz not null, "checked_at" timestamptz not null default now(), primary key ("subscription_id", "payment_method_id", "renews_at"));`,
    );
    this.addSql(
      `alter table "card_expiry_checks" add constraint "card_expiry_checks_subscription_id_foreign" foreign key ("subscription_id") references "subscriptions" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "card_expiry_checks" cascade;`);
    this.addSql(`drop index if exists "outbox_events_type_created_at_index";`);
    this.addSql(`drop table if exists "customer_mail_events" cascade;`);
    this.addSql(`drop table if exists "customer_mails" cascade;`);
    this.addSql(`alter table "organizations" drop column "customer_email_settings";`);
  }
}
