import { Migration } from '@mikro-orm/migrations';

/**
 * The customer balance ledger (db/entities/customer-balance.ts): entries are only added, so an
 * update is refused by the database itself; each insert announces the customer's change like the
 * other tables the customer state and portal show (Migration20261126231000).
 */
export class Migration20261127051000_customer_balance extends Migration {
  override name = 'Migration20261127051000_customer_balance';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "customer_balance_entry" ("id" uuid not null, "organization_id" uuid not null, "customer_id" uuid not null, "currency" varchar(255) not null, "amount" int not null, "kind" text not null, "reason" text not null, "order_id" uuid null, "subscription_id" uuid null, "created_by_user_id" uuid null, "created_by_token_id" uuid null, "idempotency_key" varchar(255) null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "customer_balance_entry_organization_id_index" on "customer_balance_entry" ("organization_id");`,
    );
    this.addSql(
      `create index "customer_balance_entry_subscription_id_index" on "customer_balance_entry" ("subscription_id");`,
    );
    this.addSql(
      `alter table "customer_balance_entry" add constraint "customer_balance_entry_idempotency_key_unique" unique ("idempotency_key");`,
    );
    this.addSql(
      `create index "customer_balance_entry_customer_id_currency_created_at_index" on "customer_balance_entry" ("customer_id", "currency", "created_at");`,
    );
    this.addSql(
      `alter table "customer_balance_entry" add constraint "customer_balance_entry_kind_order_id_unique" unique ("kind", "order_id");`,
    );
    this.addSql(
      `alter table "customer_balance_entry" add constraint "customer_balance_entry_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "customer_balance_entry" add constraint "customer_balance_entry_customer_id_foreign" foreign key ("customer_id") references "customers" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "customer_balance_entry" add constraint "customer_balance_entry_order_id_foreign" foreign key ("order_id") references "orders" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "customer_balance_entry" add constraint "customer_balance_entry_subscription_id_foreign" foreign key ("subscription_id") references "subscriptions" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "customer_balance_entry" add constraint "customer_balance_entry_kind_check" check ("kind" in ('renewal_credit', 'proration_credit', 'seller_adjustment', 'order_debit', 'refund'));`,
    );
    this.addSql(
      `alter table "customer_balance_entry" add constraint "customer_balance_entry_amount_check" check ("amount" <> 0);`,
    );
    this.addSql(`
      create function tollgate_refuse_balance_entry_update() returns trigger
      language plpgsql as $$
      begin
        raise exception 'customer balance entries are append-only';
      end $$;`);
    // A subscription deleted sets its entries' subscription_id null: the only update allowed.
    this.addSql(
      `create trigger "customer_balance_entry_append_only" before update on "customer_balance_entry"
       for each row when ((to_jsonb(old) - 'subscription_id') is distinct from (to_jsonb(new) - 'subscription_id'))
       execute function tollgate_refuse_balance_entry_update();`,
    );
    this.addSql(
      `create trigger "customer_balance_entry_announce_customer_change" after insert or delete on "customer_balance_entry"
       for each row execute function tollgate_announce_customer_change();`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "customer_balance_entry" cascade;`);
    this.addSql('drop function tollgate_refuse_balance_entry_update();');
  }
}
