import { Migration } from '@mikro-orm/migrations';

export class Migration20261122174929_commerce_catalog extends Migration {
  override name = 'Migration20261122174929_commerce_catalog';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "meters" ("id" uuid not null, "organization_id" uuid not null, "name" varchar(255) not null, "filter" jsonb not null, "aggregation" jsonb not null, "metadata" jsonb not null, "archived_at" timestamptz null, "created_at" timestamptz not null, "modified_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`create index "meters_organization_id_index" on "meters" ("organization_id");`);

    this.addSql(
      `create table "discounts" ("id" uuid not null, "organization_id" uuid not null, "name" varchar(255) not null, "code" varchar(255) null, "type" text not null, "amount" int null, "currency" varchar(255) null, "basis_points" int null, "duration" text not null, "duration_in_months" int null, "starts_at" timestamptz null, "ends_at" timestamptz null, "max_redemptions" int null, "redemptions_count" int not null default 0, "metadata" jsonb not null, "deleted_at" timestamptz null, "created_at" timestamptz not null, "modified_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(
      `create index "discounts_organization_id_created_at_index" on "discounts" ("organization_id", "created_at");`,
    );

    this.addSql(
      `create table "custom_fields" ("id" uuid not null, "organization_id" uuid not null, "type" text not null, "slug" varchar(255) not null, "name" varchar(255) not null, "properties" jsonb not null, "metadata" jsonb not null, "created_at" timestamptz not null, "modified_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "custom_fields" add constraint "custom_fields_organization_id_slug_unique" unique ("organization_id", "slug");`,
    );

    this.addSql(
      `create table "customers" ("id" uuid not null, "organization_id" uuid not null, "external_id" varchar(255) null, "email" varchar(255) not null, "email_verified" boolean not null default false, "name" varchar(255) null, "billing_address" jsonb null, "tax_id" jsonb null, "metadata" jsonb not null, "stripe_customer_id" varchar(255) null, "deleted_at" timestamptz null, "created_at" timestamptz not null, "modified_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(
      `create index "customers_organization_id_created_at_index" on "customers" ("organization_id", "created_at");`,
    );

    this.addSql(
      `create table "customer_meters" ("id" uuid not null, "customer_id" uuid not null, "meter_id" uuid not null, "consumed_units" numeric(38,12) not null default '0', "credited_units" int not null default 0, "created_at" timestamptz not null, "modified_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(
      `create index "customer_meters_customer_id_index" on "customer_meters" ("customer_id");`,
    );
    this.addSql(`create index "customer_meters_meter_id_index" on "customer_meters" ("meter_id");`);
    this.addSql(
      `alter table "customer_meters" add constraint "customer_meters_customer_id_meter_id_unique" unique ("customer_id", "meter_id");`,
    );

    this.addSql(
      `create table "checkout_links" ("id" uuid not null, "organization_id" uuid not null, "client_secret" varchar(255) not null, "label" varchar(255) null, "success_url" text null, "allow_discount_codes" boolean not null default true, "require_billing_address" boolean not null default false, "discount_id" uuid null, "trial_interval" text null, "trial_interval_count" int null, "metadata" jsonb not null, "deleted_at" timestamptz null, "created_at" timestamptz not null, "modified_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(
      `create index "checkout_links_organization_id_index" on "checkout_links" ("organization_id");`,
    );
    this.addSql(
      `alter table "checkout_links" add constraint "checkout_links_client_secret_unique" unique ("client_secret");`,
    );

    this.addSql(
      `create table "benefits" ("id" uuid not null, "organization_id" uuid not null, "type" text not null, "description" varchar(255) not null, "selectable" boolean not null default true, "deletable" boolean not null default true, "properties" jsonb not null, "metadata" jsonb not null, "deleted_at" timestamptz null, "created_at" timestamptz not null, "modified_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`create index "benefits_organization_id_index" on "benefits" ("organization_id");`);

    this.addSql(
      `create table "benefit_grants" ("id" uuid not null, "customer_id" uuid not null, "benefit_id" uuid not null, "subscription_id" uuid null, "order_id" uuid null, "granted_at" timestamptz null, "revoked_at" timestamptz null, "properties" jsonb not null, "error" jsonb null, "created_at" timestamptz not null, "modified_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(
      `create index "benefit_grants_customer_id_index" on "benefit_grants" ("customer_id");`,
    );
    this.addSql(
      `create index "benefit_grants_benefit_id_index" on "benefit_grants" ("benefit_id");`,
    );
    this.addSql(
      `alter table "benefit_grants" add constraint "benefit_grants_customer_id_benefit_id_unique" unique ("customer_id", "benefit_id");`,
    );

    this.addSql(
      `create table "outbox_events" ("id" uuid not null, "organization_id" uuid not null, "type" varchar(255) not null, "data" jsonb not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "outbox_events_organization_id_created_at_index" on "outbox_events" ("organization_id", "created_at");`,
    );

    this.addSql(
      `create table "products" ("id" uuid not null, "organization_id" uuid not null, "name" varchar(255) not null, "description" text null, "recurring_interval" text null, "trial_interval" text null, "trial_interval_count" int null, "is_archived" boolean not null default false, "metadata" jsonb not null, "created_at" timestamptz not null, "modified_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(
      `create index "products_organization_id_created_at_index" on "products" ("organization_id", "created_at");`,
    );

    this.addSql(
      `create table "discount_products" ("id" uuid not null, "discount_id" uuid not null, "product_id" uuid not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "discount_products_discount_id_index" on "discount_products" ("discount_id");`,
    );
    this.addSql(
      `create index "discount_products_product_id_index" on "discount_products" ("product_id");`,
    );
    this.addSql(
      `alter table "discount_products" add constraint "discount_products_discount_id_product_id_unique" unique ("discount_id", "product_id");`,
    );

    this.addSql(
      `create table "checkout_link_products" ("id" uuid not null, "checkout_link_id" uuid not null, "product_id" uuid not null, "order" int not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "checkout_link_products_checkout_link_id_index" on "checkout_link_products" ("checkout_link_id");`,
    );
    this.addSql(
      `create index "checkout_link_products_product_id_index" on "checkout_link_products" ("product_id");`,
    );
    this.addSql(
      `alter table "checkout_link_products" add constraint "checkout_link_products_checkout_link_id_product_id_unique" unique ("checkout_link_id", "product_id");`,
    );

    this.addSql(
      `create table "product_benefits" ("id" uuid not null, "product_id" uuid not null, "benefit_id" uuid not null, "order" int not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "product_benefits_product_id_index" on "product_benefits" ("product_id");`,
    );
    this.addSql(
      `create index "product_benefits_benefit_id_index" on "product_benefits" ("benefit_id");`,
    );
    this.addSql(
      `alter table "product_benefits" add constraint "product_benefits_product_id_benefit_id_unique" unique ("product_id", "benefit_id");`,
    );

    this.addSql(
      `create table "product_custom_fields" ("id" uuid not null, "product_id" uuid not null, "custom_field_id" uuid not null, "order" int not null, "required" boolean not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "product_custom_fields_product_id_index" on "product_custom_fields" ("product_id");`,
    );
    this.addSql(
      `create index "product_custom_fields_custom_field_id_index" on "product_custom_fields" ("custom_field_id");`,
    );
    this.addSql(
      `alter table "product_custom_fields" add constraint "product_custom_fields_product_id_custom_field_id_unique" unique ("product_id", "custom_field_id");`,
    );

    this.addSql(
      `create table "product_prices" ("id" uuid not null, "product_id" uuid not null, "amount_type" text not null, "price_currency" varchar(255) null, "price_amount" int null, "minimum_amount" int null, "maximum_amount" int null, "preset_amount" int null, "unit_amount" numeric(30,12) null, "cap_amount" int null, "meter_id" uuid null, "price_per_seat" int null, "is_archived" boolean not null default false, "created_at" timestamptz not null, "modified_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(
      `create index "product_prices_product_id_index" on "product_prices" ("product_id");`,
    );

    this.addSql(
      `create table "files" ("id" uuid not null, "organization_id" uuid not null, "name" varchar(255) not null, "path" varchar(255) not null, "mime_type" varchar(255) not null, "size" bigint not null, "service" text not null, "storage_version" varchar(255) null, "checksum_etag" varchar(255) null, "checksum_sha256base64" varchar(255) null, "checksum_sha256hex" varchar(255) null, "last_modified_at" timestamptz null, "version" varchar(255) null, "is_uploaded" boolean not null default false, "deleted_at" timestamptz null, "created_at" timestamptz not null, "modified_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`create index "files_organization_id_index" on "files" ("organization_id");`);

    this.addSql(
      `create table "product_medias" ("id" uuid not null, "product_id" uuid not null, "file_id" uuid not null, "order" int not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "product_medias_product_id_index" on "product_medias" ("product_id");`,
    );
    this.addSql(`create index "product_medias_file_id_index" on "product_medias" ("file_id");`);
    this.addSql(
      `alter table "product_medias" add constraint "product_medias_product_id_file_id_unique" unique ("product_id", "file_id");`,
    );

    this.addSql(
      `create table "organization_access_tokens" ("id" uuid not null, "organization_id" uuid not null, "token_hash" varchar(255) not null, "comment" varchar(255) not null, "scopes" text[] not null, "expires_at" timestamptz null, "last_used_at" timestamptz null, "created_by_id" uuid null, "created_at" timestamptz not null, "modified_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(
      `create index "organization_access_tokens_organization_id_index" on "organization_access_tokens" ("organization_id");`,
    );
    this.addSql(
      `alter table "organization_access_tokens" add constraint "organization_access_tokens_token_hash_unique" unique ("token_hash");`,
    );

    this.addSql(
      `alter table "organizations" add "email" varchar(255) null, add "website" varchar(255) null, add "socials" jsonb not null default '[]', add "details_submitted_at" timestamptz null, add "details" jsonb null, add "feature_settings" jsonb not null default '{"issueFundingEnabled":false,"seatBasedPricingEnabled":false}', add "subscription_settings" jsonb not null default '{"allowMultipleSubscriptions":false,"allowCustomerUpdates":true,"prorationBehavior":"prorate"}', add "notification_settings" jsonb not null default '{"newOrder":true,"newSubscription":true}';`,
    );

    this.addSql(
      `alter table "meters" add constraint "meters_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "discounts" add constraint "discounts_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "discounts" add constraint "discounts_type_check" check ("type" in ('fixed', 'percentage'));`,
    );
    this.addSql(
      `alter table "discounts" add constraint "discounts_duration_check" check ("duration" in ('once', 'forever', 'repeating'));`,
    );

    this.addSql(
      `alter table "custom_fields" add constraint "custom_fields_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "custom_fields" add constraint "custom_fields_type_check" check ("type" in ('text', 'number', 'date', 'checkbox', 'select'));`,
    );

    this.addSql(
      `alter table "customers" add constraint "customers_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "customer_meters" add constraint "customer_meters_customer_id_foreign" foreign key ("customer_id") references "customers" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "customer_meters" add constraint "customer_meters_meter_id_foreign" foreign key ("meter_id") references "meters" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "checkout_links" add constraint "checkout_links_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "checkout_links" add constraint "checkout_links_discount_id_foreign" foreign key ("discount_id") references "discounts" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "checkout_links" add constraint "checkout_links_trial_interval_check" check ("trial_interval" in ('day', 'week', 'month', 'year'));`,
    );

    this.addSql(
      `alter table "benefits" add constraint "benefits_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "benefits" add constraint "benefits_type_check" check ("type" in ('custom', 'discord', 'github_repository', 'downloadables', 'license_keys', 'meter_credit'));`,
    );

    this.addSql(
      `alter table "benefit_grants" add constraint "benefit_grants_customer_id_foreign" foreign key ("customer_id") references "customers" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "benefit_grants" add constraint "benefit_grants_benefit_id_foreign" foreign key ("benefit_id") references "benefits" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "outbox_events" add constraint "outbox_events_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "products" add constraint "products_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "products" add constraint "products_recurring_interval_check" check ("recurring_interval" in ('day', 'week', 'month', 'year'));`,
    );
    this.addSql(
      `alter table "products" add constraint "products_trial_interval_check" check ("trial_interval" in ('day', 'week', 'month', 'year'));`,
    );

    this.addSql(
      `alter table "discount_products" add constraint "discount_products_discount_id_foreign" foreign key ("discount_id") references "discounts" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "discount_products" add constraint "discount_products_product_id_foreign" foreign key ("product_id") references "products" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "checkout_link_products" add constraint "checkout_link_products_checkout_link_id_foreign" foreign key ("checkout_link_id") references "checkout_links" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "checkout_link_products" add constraint "checkout_link_products_product_id_foreign" foreign key ("product_id") references "products" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "product_benefits" add constraint "product_benefits_product_id_foreign" foreign key ("product_id") references "products" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "product_benefits" add constraint "product_benefits_benefit_id_foreign" foreign key ("benefit_id") references "benefits" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "product_custom_fields" add constraint "product_custom_fields_product_id_foreign" foreign key ("product_id") references "products" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "product_custom_fields" add constraint "product_custom_fields_custom_field_id_foreign" foreign key ("custom_field_id") references "custom_fields" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "product_prices" add constraint "product_prices_product_id_foreign" foreign key ("product_id") references "products" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "product_prices" add constraint "product_prices_meter_id_foreign" foreign key ("meter_id") references "meters" ("id") on delete restrict;`,
    );
    this.addSql(
      `alter table "product_prices" add constraint "product_prices_amount_type_check" check ("amount_type" in ('fixed', 'custom', 'free', 'metered_unit', 'seat_based'));`,
    );

    this.addSql(
      `alter table "files" add constraint "files_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "files" add constraint "files_service_check" check ("service" in ('downloadable', 'product_media', 'organization_avatar'));`,
    );

    this.addSql(
      `alter table "product_medias" add constraint "product_medias_product_id_foreign" foreign key ("product_id") references "products" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "product_medias" add constraint "product_medias_file_id_foreign" foreign key ("file_id") references "files" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "organization_access_tokens" add constraint "organization_access_tokens_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "organization_access_tokens" add constraint "organization_access_tokens_created_by_id_foreign" foreign key ("created_by_id") references "users" ("id") on delete set null;`,
    );

    // Live rows only: a soft-deleted customer or discount frees its email, external id or code.
    this.addSql(
      `create unique index "customers_organization_id_email_unique" on "customers" ("organization_id", lower("email")) where "deleted_at" is null;`,
    );
    this.addSql(
      `create unique index "customers_organization_id_external_id_unique" on "customers" ("organization_id", "external_id") where "deleted_at" is null;`,
    );
    this.addSql(
      `create unique index "discounts_organization_id_code_unique" on "discounts" ("organization_id", lower("code")) where "deleted_at" is null;`,
    );
    // The customer list's `query` matches a substring of email, name or external id: a trigram
    // index over the three (one per line) keeps it an index lookup among 100k customers.
    this.addSql(`create extension if not exists pg_trgm;`);
    this.addSql(
      `create index "customers_search_index" on "customers" using gin ((lower("email" || chr(10) || coalesce("name", '') || chr(10) || coalesce("external_id", ''))) gin_trgm_ops) where "deleted_at" is null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(
      `alter table "customer_meters" drop constraint "customer_meters_meter_id_foreign";`,
    );
    this.addSql(`alter table "product_prices" drop constraint "product_prices_meter_id_foreign";`);
    this.addSql(
      `alter table "checkout_links" drop constraint "checkout_links_discount_id_foreign";`,
    );
    this.addSql(
      `alter table "discount_products" drop constraint "discount_products_discount_id_foreign";`,
    );
    this.addSql(
      `alter table "product_custom_fields" drop constraint "product_custom_fields_custom_field_id_foreign";`,
    );
    this.addSql(
      `alter table "customer_meters" drop constraint "customer_meters_customer_id_foreign";`,
    );
    this.addSql(
      `alter table "benefit_grants" drop constraint "benefit_grants_customer_id_foreign";`,
    );
    this.addSql(
      `alter table "checkout_link_products" drop constraint "checkout_link_products_checkout_link_id_foreign";`,
    );
    this.addSql(
      `alter table "benefit_grants" drop constraint "benefit_grants_benefit_id_foreign";`,
    );
    this.addSql(
      `alter table "product_benefits" drop constraint "product_benefits_benefit_id_foreign";`,
    );
    this.addSql(
      `alter table "discount_products" drop constraint "discount_products_product_id_foreign";`,
    );
    this.addSql(
      `alter table "checkout_link_products" drop constraint "checkout_link_products_product_id_foreign";`,
    );
    this.addSql(
      `alter table "product_benefits" drop constraint "product_benefits_product_id_foreign";`,
    );
    this.addSql(
      `alter table "product_custom_fields" drop constraint "product_custom_fields_product_id_foreign";`,
    );
    this.addSql(
      `alter table "product_prices" drop constraint "product_prices_product_id_foreign";`,
    );
    this.addSql(
      `alter table "product_medias" drop constraint "product_medias_product_id_foreign";`,
    );
    this.addSql(`alter table "product_medias" drop constraint "product_medias_file_id_foreign";`);

    this.addSql(`drop table if exists "meters" cascade;`);
    this.addSql(`drop table if exists "discounts" cascade;`);
    this.addSql(`drop table if exists "custom_fields" cascade;`);
    this.addSql(`drop table if exists "customers" cascade;`);
    this.addSql(`drop table if exists "customer_meters" cascade;`);
    this.addSql(`drop table if exists "checkout_links" cascade;`);
    this.addSql(`drop table if exists "benefits" cascade;`);
    this.addSql(`drop table if exists "benefit_grants" cascade;`);
    this.addSql(`drop table if exists "outbox_events" cascade;`);
    this.addSql(`drop table if exists "products" cascade;`);
    this.addSql(`drop table if exists "discount_products" cascade;`);
    this.addSql(`drop table if exists "checkout_link_products" cascade;`);
    this.addSql(`drop table if exists "product_benefits" cascade;`);
    this.addSql(`drop table if exists "product_custom_fields" cascade;`);
    this.addSql(`drop table if exists "product_prices" cascade;`);
    this.addSql(`drop table if exists "files" cascade;`);
    this.addSql(`drop table if exists "product_medias" cascade;`);
    this.addSql(`drop table if exists "organization_access_tokens" cascade;`);

    this.addSql(
      `alter table "organizations" drop column "email", drop column "website", drop column "socials", drop column "details_submitted_at", drop column "details", drop column "feature_settings", drop column "subscription_settings", drop column "notification_settings";`,
    );
  }
}
