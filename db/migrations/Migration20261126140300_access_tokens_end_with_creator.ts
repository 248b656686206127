import { Migration } from '@mikro-orm/migrations';

/**
 * An access token whose creator is deleted went on working with no creator, out of reach of the
 * revocation that ends a member's tokens with their membership: now it goes with the user.
 */
export class Migration20261126140300_access_tokens_end_with_creator extends Migration {
  override name = 'Migration20261126140300_access_tokens_end_with_creator';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "organization_access_tokens" drop constraint "organization_access_tokens_created_by_id_foreign";`,
    );
    this.addSql(
      `alter table "organization_access_tokens" add constraint "organization_access_tokens_created_by_id_foreign" foreign key ("created_by_id") references "users" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(
      `alter table "organization_access_tokens" drop constraint "organization_access_tokens_created_by_id_foreign";`,
    );
    this.addSql(
      `alter table "organization_access_tokens" add constraint "organization_access_tokens_created_by_id_foreign" foreign key ("created_by_id") references "users" ("id") on delete set null;`,
    );
  }
}
