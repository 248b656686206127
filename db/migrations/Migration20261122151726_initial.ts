import { Migration } from '@mikro-orm/migrations';

export class Migration20261122151726_initial extends Migration {
  override name = 'Migration20261122151726_initial';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "users" ("id" uuid not null, "email" varchar(255) not null, "name" varchar(255) not null, "image" text null, "email_verified" boolean not null default false, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`alter table "users" add constraint "users_email_unique" unique ("email");`);

    this.addSql(
      `create table "sessions" ("id" varchar(255) not null, "user_id" uuid not null, "expires_at" timestamptz not null, "ip_address" varchar(255) null, "user_agent" text null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "sessions_user_id_index" on "sessions" ("user_id");`);
    this.addSql(`create index "sessions_expires_at_index" on "sessions" ("expires_at");`);

    this.addSql(
      `create table "accounts" ("id" uuid not null, "user_id" uuid not null, "provider_id" varchar(255) not null, "account_id" varchar(255) not null, "password" text null, "access_token" text null, "refresh_token" text null, "id_token" text null, "access_token_expires_at" timestamptz null, "refresh_token_expires_at" timestamptz null, "scope" text null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "accounts_user_id_index" on "accounts" ("user_id");`);
    this.addSql(
      `alter table "accounts" add constraint "accounts_provider_id_account_id_unique" unique ("provider_id", "account_id");`,
    );

    this.addSql(
      `create table "verifications" ("id" uuid not null, "identifier" varchar(255) not null, "value" text not null, "expires_at" timestamptz not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "verifications_identifier_index" on "verifications" ("identifier");`);
    this.addSql(`create index "verifications_expires_at_index" on "verifications" ("expires_at");`);

    this.addSql(
      `alter table "sessions" add constraint "sessions_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "accounts" add constraint "accounts_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "sessions" drop constraint "sessions_user_id_foreign";`);
    this.addSql(`alter table "accounts" drop constraint "accounts_user_id_foreign";`);

    this.addSql(`drop table if exists "users" cascade;`);
    this.addSql(`drop table if exists "sessions" cascade;`);
    this.addSql(`drop table if exists "accounts" cascade;`);
    this.addSql(`drop table if exists "verifications" cascade;`);
  }
}
