import { Migration } from '@mikro-orm/migrations';

/**
 * One-time links that open the customer portal without a password: mailed to a customer's
 * address, kept by their SHA-256 only, single use (`used_at`) and short-lived.
 */
export class Migration20261126194800_customer_sign_in_links extends Migration {
  override name = 'Migration20261126194800_customer_sign_in_links';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "customer_sign_in_links" ("id" uuid not null, "customer_id" uuid not null, "token_hash" varchar(255) not null, "email" varchar(255) not null, "return_to" text null, "expires_at" timestamptz not null, "used_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "customer_sign_in_links" add constraint "customer_sign_in_links_token_hash_unique" unique ("token_hash");`,
    );
    this.addSql(
      `create index "customer_sign_in_links_customer_id_index" on "customer_sign_in_links" ("customer_id");`,
    );
    this.addSql(
      `alter table "customer_sign_in_links" add constraint "customer_sign_in_links_customer_id_foreign" foreign key ("customer_id") references "customers" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "customer_sign_in_links" cascade;`);
  }
}
