import { Migration } from '@mikro-orm/migrations';

/**
 * A checkout's portal session only for a customer the buyer is known to be: the checkout
 * remembers how it came to its customer, and the session it hands out is bound to it (usable
 * once the checkout succeeded).
 */
export class Migration20261126140100_checkout_customer_proof extends Migration {
  override name = 'Migration20261126140100_checkout_customer_proof';

  override up(): void | Promise<void> {
    this.addSql(`alter table "checkouts" add column "customer_source" text null;`);
    this.addSql(`alter table "customer_sessions" add column "checkout_id" uuid null;`);
    this.addSql(
      `alter table "customer_sessions" add constraint "customer_sessions_checkout_id_foreign" foreign key ("checkout_id") references "checkouts" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(
      `alter table "customer_sessions" drop constraint "customer_sessions_checkout_id_foreign";`,
    );
    this.addSql(`alter table "customer_sessions" drop column "checkout_id";`);
    this.addSql(`alter table "checkouts" drop column "customer_source";`);
  }
}
