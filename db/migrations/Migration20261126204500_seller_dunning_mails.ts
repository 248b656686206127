import { Migration } from '@mikro-orm/migrations';

/**
 * The seller's dunning mails: the organization's `notification_settings` gains Tollgate's own
 * `dunning` (on unless turned off), and each mail to its owners and admins is claimed once by its
 * stable id (`seller_mails`), as the customer mails are in `customer_mails`.
 */
export class Migration20261126204500_seller_dunning_mails extends Migration {
  override name = 'Migration20261126204500_seller_dunning_mails';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "organizations" alter column "notification_settings" set default '{"newOrder":true,"newSubscription":true,"dunning":true}';`,
    );
    this.addSql(
      `create table "seller_mails" ("id" varchar(255) not null, "organization_id" uuid not null, "kind" varchar(64) not null, "created_at" timestamptz not null default now(), primary key ("id"));`,
    );
    this.addSql(
      `create index "seller_mails_organization_id_index" on "seller_mails" ("organization_id");`,
    );
    this.addSql(
      `alter table "seller_mails" add constraint "seller_mails_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "seller_mails" cascade;`);
    this.addSql(
      `alter table "organizations" alter column "notification_settings" set default '{"newOrder":true,"newSubscription":true}';`,
    );
  }
}
