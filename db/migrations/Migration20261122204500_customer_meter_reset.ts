import { Migration } from '@mikro-orm/migrations';

export class Migration20261122204500_customer_meter_reset extends Migration {
  override name = 'Migration20261122204500_customer_meter_reset';

  override up(): void | Promise<void> {
    this.addSql(`alter table "customer_meters" add column "reset_at" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "customer_meters" drop column "reset_at";`);
  }
}
