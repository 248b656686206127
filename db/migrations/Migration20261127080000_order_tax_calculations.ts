import { Migration } from '@mikro-orm/migrations';

/**
 * Renewals and plan changes taxed by Stripe Tax (docs/tax.md): an order made without a checkout
 * keeps the calculation behind its tax itself, for the transaction recorded once it is paid.
 */
export class Migration20261127080000_order_tax_calculations extends Migration {
  override name = 'Migration20261127080000_order_tax_calculations';

  override up(): void | Promise<void> {
    this.addSql(`alter table "orders" add column "stripe_tax_calculation_id" varchar(255) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "orders" drop column "stripe_tax_calculation_id";`);
  }
}
