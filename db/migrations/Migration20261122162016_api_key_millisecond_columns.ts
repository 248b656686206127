import { Migration } from '@mikro-orm/migrations';

export class Migration20261122162016_api_key_millisecond_columns extends Migration {
  override name = 'Migration20261122162016_api_key_millisecond_columns';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "apikey" alter column "rate_limit_time_window" type bigint using ("rate_limit_time_window"::bigint);`,
    );
    this.addSql(
      `alter table "apikey" alter column "refill_interval" type bigint using ("refill_interval"::bigint);`,
    );
    this.addSql(`create index "apikey_expires_at_index" on "apikey" ("expires_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "apikey_expires_at_index";`);
    this.addSql(
      `alter table "apikey" alter column "refill_interval" type int using ("refill_interval"::int);`,
    );
    this.addSql(
      `alter table "apikey" alter column "rate_limit_time_window" type int using ("rate_limit_time_window"::int);`,
    );
  }
}
