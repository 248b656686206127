import { Migration } from '@mikro-orm/migrations';

/**
 * What the nightly reconciliation found between Stripe and the orders (commerce/reconciliation):
 * one row per mismatch, keyed by what it is about, so a run that finds it again only updates it.
 */
export class Migration20261126235500_upkeep_payment_reconciliation extends Migration {
  override name = 'Migration20261126235500_upkeep_payment_reconciliation';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "payment_mismatches" ("id" varchar(255) not null, "kind" varchar(32) not null, "payment_intent_id" varchar(255) null, "order_id" uuid null, "organization_id" uuid null, "stripe_amount" int null, "recorded_amount" int null, "currency" varchar(16) null, "occurred_at" timestamptz not null, "detected_at" timestamptz not null default now(), "last_seen_at" timestamptz not null default now(), primary key ("id"));`,
    );
    this.addSql(
      `create index "payment_mismatches_occurred_at_index" on "payment_mismatches" ("occurred_at");`,
    );
    this.addSql(
      `alter table "payment_mismatches" add constraint "payment_mismatches_order_id_foreign" foreign key ("order_id") references "orders" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "payment_mismatches" add constraint "payment_mismatches_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "payment_mismatches" cascade;`);
  }
}
