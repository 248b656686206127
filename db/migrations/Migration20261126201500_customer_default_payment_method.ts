import { Migration } from '@mikro-orm/migrations';

/** The card a customer chose in the portal for its subscriptions' renewals (Stripe's `pm_…`). */
export class Migration20261126201500_customer_default_payment_method extends Migration {
  override name = 'Migration20261126201500_customer_default_payment_method';

  override up(): void | Promise<void> {
    this.addSql(`alter table "customers" add "default_payment_method_id" varchar(255) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "customers" drop column "default_payment_method_id";`);
  }
}
