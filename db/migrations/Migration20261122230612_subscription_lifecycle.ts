import { Migration } from '@mikro-orm/migrations';

export class Migration20261122230612_subscription_lifecycle extends Migration {
  override name = 'Migration20261122230612_subscription_lifecycle';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "test_clocks" ("id" uuid not null, "organization_id" uuid not null, "name" varchar(255) null, "frozen_time" timestamptz not null, "status" text not null default 'ready', "created_at" timestamptz not null, "modified_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(
      `create index "test_clocks_organization_id_created_at_index" on "test_clocks" ("organization_id", "created_at");`,
    );

    this.addSql(
      `create table "refunds" ("id" uuid not null, "organization_id" uuid not null, "order_id" uuid not null, "subscription_id" uuid null, "customer_id" uuid not null, "status" text not null, "reason" text not null, "amount" int not null, "tax_amount" int not null, "currency" varchar(255) not null, "comment" text null, "revoke_benefits" boolean not null default false, "metadata" jsonb not null, "processor_id" varchar(255) null, "failure_reason" varchar(255) null, "created_at" timestamptz not null, "modified_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`create index "refunds_order_id_index" on "refunds" ("order_id");`);
    this.addSql(`create index "refunds_subscription_id_index" on "refunds" ("subscription_id");`);
    this.addSql(`create index "refunds_customer_id_index" on "refunds" ("customer_id");`);
    this.addSql(
      `alter table "refunds" add constraint "refunds_processor_id_unique" unique ("processor_id");`,
    );
    this.addSql(
      `create index "refunds_organization_id_created_at_index" on "refunds" ("organization_id", "created_at");`,
    );

    this.addSql(
      `alter table "organizations" alter column "subscription_settings" set default '{"allowMultipleSubscriptions":false,"allowCustomerUpdates":true,"prorationBehavior":"prorate","dunningRetryDays":[2,7,14,21],"dunningFinalStatus":"canceled"}';`,
    );

    // Organizations saved before the dunning settings existed get their defaults.
    this.addSql(
      `update "organizations" set "subscription_settings" = '{"dunningRetryDays":[2,7,14,21],"dunningFinalStatus":"canceled"}'::jsonb || "subscription_settings";`,
    );

    this.addSql(`alter table "customers" add "test_clock_id" uuid null;`);
    this.addSql(
      `alter table "customers" add constraint "customers_test_clock_id_foreign" foreign key ("test_clock_id") references "test_clocks" ("id") on delete set null;`,
    );
    this.addSql(`create index "customers_test_clock_id_index" on "customers" ("test_clock_id");`);

    this.addSql(
      `alter table "subscriptions" add "billing_anchor" timestamptz null, add "pending_items" jsonb not null default '[]', add "past_due_at" timestamptz null, add "dunning_attempts" int not null default 0, add "next_payment_attempt_at" timestamptz null, add "last_payment_error" jsonb null, add "test_clock_id" uuid null;`,
    );
    // Existing subscriptions count their periods from their first billed instant.
    this.addSql(
      `update "subscriptions" set "billing_anchor" = coalesce("trial_end", "current_period_start");`,
    );
    this.addSql(`alter table "subscriptions" alter column "billing_anchor" set not null;`);
    this.addSql(`alter table "subscriptions" alter column "pending_items" drop default;`);
    this.addSql(
      `alter table "subscriptions" add constraint "subscriptions_test_clock_id_foreign" foreign key ("test_clock_id") references "test_clocks" ("id") on delete set null;`,
    );
    this.addSql(
      `create index "subscriptions_test_clock_id_index" on "subscriptions" ("test_clock_id");`,
    );
    this.addSql(
      `create index "subscriptions_organization_id_status_next_payment__a1491_index" on "subscriptions" ("organization_id", "status", "next_payment_attempt_at");`,
    );

    this.addSql(
      `alter table "test_clocks" add constraint "test_clocks_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "test_clocks" add constraint "test_clocks_status_check" check ("status" in ('ready', 'advancing'));`,
    );

    this.addSql(
      `alter table "refunds" add constraint "refunds_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "refunds" add constraint "refunds_order_id_foreign" foreign key ("order_id") references "orders" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "refunds" add constraint "refunds_subscription_id_foreign" foreign key ("subscription_id") references "subscriptions" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "refunds" add constraint "refunds_customer_id_foreign" foreign key ("customer_id") references "customers" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "refunds" add constraint "refunds_status_check" check ("status" in ('pending', 'succeeded', 'failed', 'canceled'));`,
    );
    this.addSql(
      `alter table "refunds" add constraint "refunds_reason_check" check ("reason" in ('duplicate', 'fraudulent', 'customer_request', 'service_disruption', 'satisfaction_guarantee', 'other'));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "customers" drop constraint "customers_test_clock_id_foreign";`);
    this.addSql(
      `alter table "subscriptions" drop constraint "subscriptions_test_clock_id_foreign";`,
    );

    this.addSql(`drop table if exists "test_clocks" cascade;`);
    this.addSql(`drop table if exists "refunds" cascade;`);

    this.addSql(`drop index "customers_test_clock_id_index";`);
    this.addSql(`alter table "customers" drop column "test_clock_id";`);

    this.addSql(
      `alter table "organizations" alter column "subscription_settings" set default '{"allowMultipleSubscriptions":false,"allowCustomerUpdates":true,"prorationBehavior":"prorate"}';`,
    );

    this.addSql(`drop index "subscriptions_test_clock_id_index";`);
    this.addSql(`drop index "subscriptions_organization_id_status_next_payment__a1491_index";`);
    this.addSql(
      `alter table "subscriptions" drop column "billing_anchor", drop column "pending_items", drop column "past_due_at", drop column "dunning_attempts", drop column "next_payment_attempt_at", drop column "last_payment_error", drop column "test_clock_id";`,
    );
  }
}
