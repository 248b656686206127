import { Migration } from '@mikro-orm/migrations';

export class Migration20261122203500_checkout_confirmation_id extends Migration {
  override name = 'Migration20261122203500_checkout_confirmation_id';

  override up(): void | Promise<void> {
    this.addSql(`alter table "checkouts" add column "confirmation_id" varchar(255) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "checkouts" drop column "confirmation_id";`);
  }
}
