import { Migration } from '@mikro-orm/migrations';

export class Migration20261122155347_accounts_admin_api_keys_rate_limits extends Migration {
  override name = 'Migration20261122155347_accounts_admin_api_keys_rate_limits';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "rate_limits" ("key" varchar(255) not null, "count" int not null, "window_started_at" timestamptz not null, primary key ("key"));`,
    );

    this.addSql(
      `create table "apikey" ("id" uuid not null, "user_id" uuid not null, "name" varchar(255) null, "prefix" varchar(255) null, "start" varchar(255) null, "key" varchar(255) not null, "enabled" boolean not null default true, "expires_at" timestamptz null, "remaining" int null, "refill_interval" int null, "refill_amount" int null, "last_refill_at" timestamptz null, "rate_limit_enabled" boolean not null default true, "rate_limit_time_window" int null, "rate_limit_max" int null, "request_count" int not null default 0, "last_request" timestamptz null, "permissions" text null, "metadata" text null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "apikey_user_id_index" on "apikey" ("user_id");`);
    this.addSql(`alter table "apikey" add constraint "apikey_key_unique" unique ("key");`);

    this.addSql(
      `alter table "users" add "role" varchar(255) not null default 'user', add "banned" boolean not null default false, add "ban_reason" text null, add "ban_expires" timestamptz null;`,
    );

    this.addSql(`alter table "sessions" add "impersonated_by" uuid null;`);

    this.addSql(
      `alter table "apikey" add constraint "apikey_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "rate_limits" cascade;`);
    this.addSql(`drop table if exists "apikey" cascade;`);

    this.addSql(`alter table "sessions" drop column "impersonated_by";`);

    this.addSql(
      `alter table "users" drop column "role", drop column "banned", drop column "ban_reason", drop column "ban_expires";`,
    );
  }
}
