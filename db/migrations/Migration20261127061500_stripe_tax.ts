import { Migration } from '@mikro-orm/migrations';

/**
 * Stripe Tax (issue 22, option 1; docs/tax.md): the calculation behind a checkout's tax, and the
 * tax transaction recorded from it once its order is paid (a refund reverses part of it).
 */
export class Migration20261127061500_stripe_tax extends Migration {
  override name = 'Migration20261127061500_stripe_tax';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "checkouts" add column "stripe_tax_calculation_id" varchar(255) null;`,
    );
    this.addSql(`alter table "orders" add column "stripe_tax_transaction_id" varchar(255) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "checkouts" drop column "stripe_tax_calculation_id";`);
    this.addSql(`alter table "orders" drop column "stripe_tax_transaction_id";`);
  }
}
