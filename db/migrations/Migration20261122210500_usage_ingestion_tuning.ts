import { Migration } from '@mikro-orm/migrations';

/**
 * Ingestion's hot rows and lookups. Customer meters and hourly rollups are updated by every
 * batch: pages kept half empty let PostgreSQL update their rows in place (HOT), without new
 * index entries each time. Events still waiting for their customer are found by external id
 * when it appears, without scanning the organization's events.
 */
export class Migration20261122210500_usage_ingestion_tuning extends Migration {
  override name = 'Migration20261122210500_usage_ingestion_tuning';

  override up(): void | Promise<void> {
    this.addSql(`alter table "customer_meters" set (fillfactor = 50);`);
    this.addSql(`alter table "meter_usage_hours" set (fillfactor = 50);`);
    this.addSql(
      `create index "events_pending_customer_index" on "events" ("organization_id", "external_customer_id") where "customer_id" is null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "events_pending_customer_index";`);
    this.addSql(`alter table "customer_meters" reset (fillfactor);`);
    this.addSql(`alter table "meter_usage_hours" reset (fillfactor);`);
  }
}
