import { Migration } from '@mikro-orm/migrations';

export class Migration20261122200936_commerce_flows extends Migration {
  override name = 'Migration20261122200936_commerce_flows';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "meter_usage_hours" ("id" uuid not null, "meter_id" uuid not null, "customer_id" uuid not null, "hour" timestamptz not null, "event_count" bigint not null default '0', "sum_value" numeric(38,12) not null default '0', "min_value" numeric(38,12) null, "max_value" numeric(38,12) null, primary key ("id"));`,
    );
    this.addSql(
      `create index "meter_usage_hours_customer_id_index" on "meter_usage_hours" ("customer_id");`,
    );
    this.addSql(
      `alter table "meter_usage_hours" add constraint "meter_usage_hours_meter_id_customer_id_hour_unique" unique ("meter_id", "customer_id", "hour");`,
    );

    this.addSql(
      `create table "meter_billed_periods" ("id" uuid not null, "meter_id" uuid not null, "customer_id" uuid not null, "period_start" timestamptz not null, "period_end" timestamptz not null, "units" numeric(38,12) not null, "subscription_id" uuid null, "billed_at" timestamptz not null, "late_units" numeric(38,12) not null default '0', "late_event_count" int not null default 0, primary key ("id"));`,
    );
    this.addSql(
      `create index "meter_billed_periods_customer_id_index" on "meter_billed_periods" ("customer_id");`,
    );
    this.addSql(
      `alter table "meter_billed_periods" add constraint "meter_billed_periods_meter_id_customer_id_period_start_unique" unique ("meter_id", "customer_id", "period_start");`,
    );

    this.addSql(
      `create table "customer_sessions" ("id" uuid not null, "customer_id" uuid not null, "token_hash" varchar(255) not null, "expires_at" timestamptz not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "customer_sessions_customer_id_index" on "customer_sessions" ("customer_id");`,
    );
    this.addSql(
      `alter table "customer_sessions" add constraint "customer_sessions_token_hash_unique" unique ("token_hash");`,
    );

    this.addSql(
      `create table "customer_oauth_accounts" ("id" uuid not null, "customer_id" uuid not null, "platform" text not null, "account_id" varchar(255) not null, "account_username" varchar(255) null, "access_token" text null, "created_at" timestamptz not null, "modified_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "customer_oauth_accounts" add constraint "customer_oauth_accounts_customer_id_platform_unique" unique ("customer_id", "platform");`,
    );

    this.addSql(
      `create table "license_keys" ("id" uuid not null, "organization_id" uuid not null, "customer_id" uuid not null, "benefit_id" uuid not null, "key" varchar(255) not null, "display_key" varchar(255) not null, "status" text not null, "limit_activations" int null, "usage" int not null default 0, "limit_usage" int null, "validations" int not null default 0, "last_validated_at" timestamptz null, "expires_at" timestamptz null, "created_at" timestamptz not null, "modified_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`create index "license_keys_benefit_id_index" on "license_keys" ("benefit_id");`);
    this.addSql(
      `alter table "license_keys" add constraint "license_keys_organization_id_key_unique" unique ("organization_id", "key");`,
    );
    this.addSql(
      `alter table "license_keys" add constraint "license_keys_customer_id_benefit_id_unique" unique ("customer_id", "benefit_id");`,
    );

    this.addSql(
      `create table "license_key_activations" ("id" uuid not null, "license_key_id" uuid not null, "label" varchar(255) not null, "meta" jsonb not null, "conditions" jsonb not null, "deleted_at" timestamptz null, "created_at" timestamptz not null, "modified_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(
      `create index "license_key_activations_license_key_id_index" on "license_key_activations" ("license_key_id");`,
    );

    this.addSql(
      `create table "processed_stripe_events" ("id" varchar(255) not null, "type" varchar(255) not null, "received_at" timestamptz not null, primary key ("id"));`,
    );

    this.addSql(
      `create table "downloadables" ("id" uuid not null, "customer_id" uuid not null, "benefit_id" uuid not null, "file_id" uuid not null, "status" text not null, "downloaded" int not null default 0, "last_downloaded_at" timestamptz null, "created_at" timestamptz not null, "modified_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`create index "downloadables_benefit_id_index" on "downloadables" ("benefit_id");`);
    this.addSql(`create index "downloadables_file_id_index" on "downloadables" ("file_id");`);
    this.addSql(
      `alter table "downloadables" add constraint "downloadables_customer_id_benefit_id_file_id_unique" unique ("customer_id", "benefit_id", "file_id");`,
    );

    this.addSql(
      `create table "subscriptions" ("id" uuid not null, "organization_id" uuid not null, "customer_id" uuid not null, "product_id" uuid not null, "status" text not null, "amount" int not null, "currency" varchar(255) not null, "recurring_interval" text not null, "current_period_start" timestamptz not null, "current_period_end" timestamptz null, "trial_start" timestamptz null, "trial_end" timestamptz null, "cancel_at_period_end" boolean not null default false, "canceled_at" timestamptz null, "started_at" timestamptz null, "ends_at" timestamptz null, "ended_at" timestamptz null, "discount_id" uuid null, "checkout_id" uuid null, "customer_cancellation_reason" text null, "customer_cancellation_comment" text null, "metadata" jsonb not null, "custom_field_data" jsonb not null, "stripe_payment_method_id" varchar(255) null, "created_at" timestamptz not null, "modified_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`create index "subscriptions_product_id_index" on "subscriptions" ("product_id");`);
    this.addSql(
      `create index "subscriptions_organization_id_created_at_index" on "subscriptions" ("organization_id", "created_at");`,
    );
    this.addSql(
      `create index "subscriptions_customer_id_status_index" on "subscriptions" ("customer_id", "status");`,
    );

    this.addSql(
      `create table "orders" ("id" uuid not null, "organization_id" uuid not null, "customer_id" uuid not null, "product_id" uuid not null, "discount_id" uuid null, "subscription_id" uuid null, "checkout_id" uuid null, "status" text not null, "billing_reason" text not null, "subtotal_amount" int not null, "discount_amount" int not null, "net_amount" int not null, "tax_amount" int not null, "total_amount" int not null, "from_balance_amount" int not null default 0, "refunded_amount" int not null default 0, "refunded_tax_amount" int not null default 0, "currency" varchar(255) not null, "billing_name" varchar(255) null, "billing_address" jsonb null, "invoice_number" varchar(255) not null, "is_invoice_generated" boolean not null default false, "metadata" jsonb not null, "custom_field_data" jsonb not null, "created_at" timestamptz not null, "modified_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`create index "orders_customer_id_index" on "orders" ("customer_id");`);
    this.addSql(`create index "orders_product_id_index" on "orders" ("product_id");`);
    this.addSql(`create index "orders_subscription_id_index" on "orders" ("subscription_id");`);
    this.addSql(`create index "orders_checkout_id_index" on "orders" ("checkout_id");`);
    this.addSql(
      `create index "orders_organization_id_created_at_index" on "orders" ("organization_id", "created_at");`,
    );
    this.addSql(
      `alter table "orders" add constraint "orders_organization_id_invoice_number_unique" unique ("organization_id", "invoice_number");`,
    );

    this.addSql(
      `create table "payments" ("id" uuid not null, "organization_id" uuid not null, "checkout_id" uuid null, "order_id" uuid null, "status" text not null, "amount" int not null, "currency" varchar(255) not null, "method" varchar(255) not null default 'card', "method_metadata" jsonb not null, "decline_reason" varchar(255) null, "decline_message" varchar(255) null, "processor_id" varchar(255) null, "created_at" timestamptz not null, "modified_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`create index "payments_checkout_id_index" on "payments" ("checkout_id");`);
    this.addSql(`create index "payments_order_id_index" on "payments" ("order_id");`);
    this.addSql(
      `alter table "payments" add constraint "payments_processor_id_unique" unique ("processor_id");`,
    );
    this.addSql(
      `create index "payments_organization_id_created_at_index" on "payments" ("organization_id", "created_at");`,
    );

    this.addSql(
      `create table "order_items" ("id" uuid not null, "order_id" uuid not null, "label" varchar(255) not null, "amount" int not null, "tax_amount" int not null default 0, "proration" boolean not null default false, "product_price_id" uuid null, "created_at" timestamptz not null, "modified_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`create index "order_items_order_id_index" on "order_items" ("order_id");`);

    this.addSql(
      `create table "checkouts" ("id" uuid not null, "organization_id" uuid not null, "client_secret" varchar(255) not null, "status" text not null default 'open', "expires_at" timestamptz not null, "success_url" text null, "embed_origin" varchar(255) null, "product_ids" text[] not null, "product_id" uuid not null, "product_price_id" uuid not null, "amount" int not null, "discount_amount" int not null default 0, "net_amount" int not null, "tax_amount" int null, "total_amount" int not null, "currency" varchar(255) not null, "seats" int null, "discount_id" uuid null, "customer_id" uuid null, "subscription_id" uuid null, "order_id" uuid null, "checkout_link_id" uuid null, "allow_discount_codes" boolean not null default true, "require_billing_address" boolean not null default false, "is_business_customer" boolean not null default false, "customer_name" varchar(255) null, "customer_email" varchar(255) null, "customer_ip_address" varchar(255) null, "customer_billing_name" varchar(255) null, "customer_billing_address" jsonb null, "customer_tax_id" jsonb null, "customer_metadata" jsonb not null, "external_customer_id" varchar(255) null, "custom_field_data" jsonb not null, "metadata" jsonb not null, "payment_processor_metadata" jsonb not null, "trial_interval" text null, "trial_interval_count" int null, "stripe_payment_intent_id" varchar(255) null, "payment_error" jsonb null, "confirmed_at" timestamptz null, "created_at" timestamptz not null, "modified_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "checkouts" add constraint "checkouts_client_secret_unique" unique ("client_secret");`,
    );
    this.addSql(`create index "checkouts_product_id_index" on "checkouts" ("product_id");`);
    this.addSql(`create index "checkouts_customer_id_index" on "checkouts" ("customer_id");`);
    this.addSql(
      `create index "checkouts_organization_id_created_at_index" on "checkouts" ("organization_id", "created_at");`,
    );

    this.addSql(
      `create table "discount_redemptions" ("id" uuid not null, "discount_id" uuid not null, "checkout_id" uuid not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "discount_redemptions_discount_id_index" on "discount_redemptions" ("discount_id");`,
    );
    this.addSql(
      `alter table "discount_redemptions" add constraint "discount_redemptions_checkout_id_unique" unique ("checkout_id");`,
    );

    this.addSql(
      `create table "subscription_prices" ("id" uuid not null, "subscription_id" uuid not null, "product_price_id" uuid not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "subscription_prices_subscription_id_index" on "subscription_prices" ("subscription_id");`,
    );
    this.addSql(
      `create index "subscription_prices_product_price_id_index" on "subscription_prices" ("product_price_id");`,
    );
    this.addSql(
      `alter table "subscription_prices" add constraint "subscription_prices_subscription_id_product_price_id_unique" unique ("subscription_id", "product_price_id");`,
    );

    this.addSql(
      `create table "events" ("id" uuid not null, "organization_id" uuid not null, "name" varchar(255) not null, "source" text not null default 'user', "timestamp" timestamptz not null, "customer_id" uuid null, "external_customer_id" varchar(255) null, "external_id" varchar(255) null, "metadata" jsonb not null, "ingested_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "events_organization_id_timestamp_index" on "events" ("organization_id", "timestamp");`,
    );
    this.addSql(
      `create index "events_customer_id_timestamp_index" on "events" ("customer_id", "timestamp");`,
    );
    this.addSql(
      `alter table "events" add constraint "events_organization_id_external_id_unique" unique ("organization_id", "external_id");`,
    );

    this.addSql(
      `create table "webhook_endpoints" ("id" uuid not null, "organization_id" uuid not null, "url" text not null, "format" text not null, "secret" varchar(255) not null, "events" text[] not null, "enabled" boolean not null default true, "disabled_at" timestamptz null, "disabled_reason" varchar(255) null, "consecutive_failures" int not null default 0, "created_at" timestamptz not null, "modified_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(
      `create index "webhook_endpoints_organization_id_index" on "webhook_endpoints" ("organization_id");`,
    );

    this.addSql(
      `create table "webhook_events" ("id" uuid not null, "endpoint_id" uuid not null, "outbox_event_id" uuid null, "type" varchar(255) not null, "payload" text not null, "succeeded" boolean null, "last_http_code" int null, "attempts" int not null default 0, "next_attempt_at" timestamptz null, "is_archived" boolean not null default false, "created_at" timestamptz not null, "modified_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(
      `create index "webhook_events_outbox_event_id_index" on "webhook_events" ("outbox_event_id");`,
    );
    this.addSql(
      `create index "webhook_events_endpoint_id_created_at_index" on "webhook_events" ("endpoint_id", "created_at");`,
    );
    this.addSql(
      `alter table "webhook_events" add constraint "webhook_events_endpoint_id_outbox_event_id_unique" unique ("endpoint_id", "outbox_event_id");`,
    );

    this.addSql(
      `create table "webhook_deliveries" ("id" uuid not null, "webhook_event_id" uuid not null, "endpoint_id" uuid not null, "attempt" int not null, "succeeded" boolean not null, "http_code" int null, "response" text null, "error" text null, "duration_ms" int not null, "created_at" timestamptz not null, "modified_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(
      `create index "webhook_deliveries_webhook_event_id_index" on "webhook_deliveries" ("webhook_event_id");`,
    );
    this.addSql(
      `create index "webhook_deliveries_endpoint_id_created_at_index" on "webhook_deliveries" ("endpoint_id", "created_at");`,
    );

    this.addSql(`alter table "organizations" add "last_invoice_number" int not null default 0;`);

    this.addSql(`alter table "outbox_events" add "relayed_at" timestamptz null;`);
    // Hand-added: events written before webhooks existed have nowhere to go; the relay reads
    // the unrelayed ones through this partial index.
    this.addSql(`update "outbox_events" set "relayed_at" = "created_at";`);
    this.addSql(
      `create index "outbox_events_unrelayed_index" on "outbox_events" ("created_at") where "relayed_at" is null;`,
    );

    this.addSql(
      `alter table "meter_usage_hours" add constraint "meter_usage_hours_meter_id_foreign" foreign key ("meter_id") references "meters" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "meter_usage_hours" add constraint "meter_usage_hours_customer_id_foreign" foreign key ("customer_id") references "customers" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "meter_billed_periods" add constraint "meter_billed_periods_meter_id_foreign" foreign key ("meter_id") references "meters" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "meter_billed_periods" add constraint "meter_billed_periods_customer_id_foreign" foreign key ("customer_id") references "customers" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "customer_sessions" add constraint "customer_sessions_customer_id_foreign" foreign key ("customer_id") references "customers" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "customer_oauth_accounts" add constraint "customer_oauth_accounts_customer_id_foreign" foreign key ("customer_id") references "customers" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "customer_oauth_accounts" add constraint "customer_oauth_accounts_platform_check" check ("platform" in ('discord', 'github'));`,
    );

    this.addSql(
      `alter table "license_keys" add constraint "license_keys_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "license_keys" add constraint "license_keys_customer_id_foreign" foreign key ("customer_id") references "customers" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "license_keys" add constraint "license_keys_benefit_id_foreign" foreign key ("benefit_id") references "benefits" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "license_keys" add constraint "license_keys_status_check" check ("status" in ('granted', 'revoked', 'disabled'));`,
    );

    this.addSql(
      `alter table "license_key_activations" add constraint "license_key_activations_license_key_id_foreign" foreign key ("license_key_id") references "license_keys" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "downloadables" add constraint "downloadables_customer_id_foreign" foreign key ("customer_id") references "customers" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "downloadables" add constraint "downloadables_benefit_id_foreign" foreign key ("benefit_id") references "benefits" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "downloadables" add constraint "downloadables_file_id_foreign" foreign key ("file_id") references "files" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "downloadables" add constraint "downloadables_status_check" check ("status" in ('granted', 'revoked'));`,
    );

    this.addSql(
      `alter table "subscriptions" add constraint "subscriptions_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "subscriptions" add constraint "subscriptions_customer_id_foreign" foreign key ("customer_id") references "customers" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "subscriptions" add constraint "subscriptions_product_id_foreign" foreign key ("product_id") references "products" ("id") on delete restrict;`,
    );
    this.addSql(
      `alter table "subscriptions" add constraint "subscriptions_discount_id_foreign" foreign key ("discount_id") references "discounts" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "subscriptions" add constraint "subscriptions_status_check" check ("status" in ('incomplete', 'incomplete_expired', 'trialing', 'active', 'past_due', 'canceled', 'unpaid'));`,
    );
    this.addSql(
      `alter table "subscriptions" add constraint "subscriptions_recurring_interval_check" check ("recurring_interval" in ('day', 'week', 'month', 'year'));`,
    );
    this.addSql(
      `alter table "subscriptions" add constraint "subscriptions_customer_cancellation_reason_check" check ("customer_cancellation_reason" in ('customer_service', 'low_quality', 'missing_features', 'switched_service', 'too_complex', 'too_expensive', 'unused', 'other'));`,
    );

    this.addSql(
      `alter table "orders" add constraint "orders_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "orders" add constraint "orders_customer_id_foreign" foreign key ("customer_id") references "customers" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "orders" add constraint "orders_product_id_foreign" foreign key ("product_id") references "products" ("id") on delete restrict;`,
    );
    this.addSql(
      `alter table "orders" add constraint "orders_discount_id_foreign" foreign key ("discount_id") references "discounts" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "orders" add constraint "orders_subscription_id_foreign" foreign key ("subscription_id") references "subscriptions" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "orders" add constraint "orders_status_check" check ("status" in ('pending', 'paid', 'refunded', 'partially_refunded'));`,
    );
    this.addSql(
      `alter table "orders" add constraint "orders_billing_reason_check" check ("billing_reason" in ('purchase', 'subscription_create', 'subscription_cycle', 'subscription_update'));`,
    );

    this.addSql(
      `alter table "payments" add constraint "payments_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "payments" add constraint "payments_order_id_foreign" foreign key ("order_id") references "orders" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "payments" add constraint "payments_status_check" check ("status" in ('pending', 'succeeded', 'failed'));`,
    );

    this.addSql(
      `alter table "order_items" add constraint "order_items_order_id_foreign" foreign key ("order_id") references "orders" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "order_items" add constraint "order_items_product_price_id_foreign" foreign key ("product_price_id") references "product_prices" ("id") on delete set null;`,
    );

    this.addSql(
      `alter table "checkouts" add constraint "checkouts_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "checkouts" add constraint "checkouts_product_id_foreign" foreign key ("product_id") references "products" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "checkouts" add constraint "checkouts_product_price_id_foreign" foreign key ("product_price_id") references "product_prices" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "checkouts" add constraint "checkouts_discount_id_foreign" foreign key ("discount_id") references "discounts" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "checkouts" add constraint "checkouts_customer_id_foreign" foreign key ("customer_id") references "customers" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "checkouts" add constraint "checkouts_subscription_id_foreign" foreign key ("subscription_id") references "subscriptions" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "checkouts" add constraint "checkouts_order_id_foreign" foreign key ("order_id") references "orders" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "checkouts" add constraint "checkouts_checkout_link_id_foreign" foreign key ("checkout_link_id") references "checkout_links" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "checkouts" add constraint "checkouts_status_check" check ("status" in ('open', 'expired', 'confirmed', 'succeeded', 'failed'));`,
    );
    this.addSql(
      `alter table "checkouts" add constraint "checkouts_trial_interval_check" check ("trial_interval" in ('day', 'week', 'month', 'year'));`,
    );

    this.addSql(
      `alter table "discount_redemptions" add constraint "discount_redemptions_discount_id_foreign" foreign key ("discount_id") references "discounts" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "discount_redemptions" add constraint "discount_redemptions_checkout_id_foreign" foreign key ("checkout_id") references "checkouts" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "subscription_prices" add constraint "subscription_prices_subscription_id_foreign" foreign key ("subscription_id") references "subscriptions" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "subscription_prices" add constraint "subscription_prices_product_price_id_foreign" foreign key ("product_price_id") references "product_prices" ("id") on delete restrict;`,
    );

    this.addSql(
      `alter table "events" add constraint "events_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "events" add constraint "events_customer_id_foreign" foreign key ("customer_id") references "customers" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "events" add constraint "events_source_check" check ("source" in ('user', 'system'));`,
    );

    this.addSql(
      `alter table "webhook_endpoints" add constraint "webhook_endpoints_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "webhook_endpoints" add constraint "webhook_endpoints_format_check" check ("format" in ('raw', 'discord', 'slack'));`,
    );

    this.addSql(
      `alter table "webhook_events" add constraint "webhook_events_endpoint_id_foreign" foreign key ("endpoint_id") references "webhook_endpoints" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "webhook_events" add constraint "webhook_events_outbox_event_id_foreign" foreign key ("outbox_event_id") references "outbox_events" ("id") on delete set null;`,
    );

    this.addSql(
      `alter table "webhook_deliveries" add constraint "webhook_deliveries_webhook_event_id_foreign" foreign key ("webhook_event_id") references "webhook_events" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "webhook_deliveries" add constraint "webhook_deliveries_endpoint_id_foreign" foreign key ("endpoint_id") references "webhook_endpoints" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(
      `alter table "license_key_activations" drop constraint "license_key_activations_license_key_id_foreign";`,
    );
    this.addSql(`alter table "orders" drop constraint "orders_subscription_id_foreign";`);
    this.addSql(`alter table "checkouts" drop constraint "checkouts_subscription_id_foreign";`);
    this.addSql(
      `alter table "subscription_prices" drop constraint "subscription_prices_subscription_id_foreign";`,
    );
    this.addSql(`alter table "payments" drop constraint "payments_order_id_foreign";`);
    this.addSql(`alter table "order_items" drop constraint "order_items_order_id_foreign";`);
    this.addSql(`alter table "checkouts" drop constraint "checkouts_order_id_foreign";`);
    this.addSql(
      `alter table "discount_redemptions" drop constraint "discount_redemptions_checkout_id_foreign";`,
    );
    this.addSql(
      `alter table "webhook_events" drop constraint "webhook_events_endpoint_id_foreign";`,
    );
    this.addSql(
      `alter table "webhook_deliveries" drop constraint "webhook_deliveries_endpoint_id_foreign";`,
    );
    this.addSql(
      `alter table "webhook_deliveries" drop constraint "webhook_deliveries_webhook_event_id_foreign";`,
    );

    this.addSql(`drop table if exists "meter_usage_hours" cascade;`);
    this.addSql(`drop table if exists "meter_billed_periods" cascade;`);
    this.addSql(`drop table if exists "customer_sessions" cascade;`);
    this.addSql(`drop table if exists "customer_oauth_accounts" cascade;`);
    this.addSql(`drop table if exists "license_keys" cascade;`);
    this.addSql(`drop table if exists "license_key_activations" cascade;`);
    this.addSql(`drop table if exists "processed_stripe_events" cascade;`);
    this.addSql(`drop table if exists "downloadables" cascade;`);
    this.addSql(`drop table if exists "subscriptions" cascade;`);
    this.addSql(`drop table if exists "orders" cascade;`);
    this.addSql(`drop table if exists "payments" cascade;`);
    this.addSql(`drop table if exists "order_items" cascade;`);
    this.addSql(`drop table if exists "checkouts" cascade;`);
    this.addSql(`drop table if exists "discount_redemptions" cascade;`);
    this.addSql(`drop table if exists "subscription_prices" cascade;`);
    this.addSql(`drop table if exists "events" cascade;`);
    this.addSql(`drop table if exists "webhook_endpoints" cascade;`);
    this.addSql(`drop table if exists "webhook_events" cascade;`);
    this.addSql(`drop table if exists "webhook_deliveries" cascade;`);

    this.addSql(`alter table "organizations" drop column "last_invoice_number";`);

    this.addSql(`alter table "outbox_events" drop column "relayed_at";`);
  }
}
