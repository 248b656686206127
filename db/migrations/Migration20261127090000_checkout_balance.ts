import { Migration } from '@mikro-orm/migrations';

/**
 * Checkouts spend the customer balance (commerce/customers/balance.ts): a confirmed checkout
 * holds what it takes of the balance until it succeeds or fails, and a refund of an order paid
 * partly from the balance gives that part back to the balance.
 */
export class Migration20261127090000_checkout_balance extends Migration {
  override name = 'Migration20261127090000_checkout_balance';

  override up(): void | Promise<void> {
    this.addSql(`alter table "checkouts" add column "from_balance_amount" int not null default 0;`);
    this.addSql(`alter table "refunds" add column "to_balance_amount" int not null default 0;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "checkouts" drop column "from_balance_amount";`);
    this.addSql(`alter table "refunds" drop column "to_balance_amount";`);
  }
}
