import { Migration } from '@mikro-orm/migrations';

/**
 * Roles an organization defines for itself (Better Auth's dynamic access control): a name unique
 * in the organization and its permission map, actions per resource.
 */
export class Migration20261126223000_organization_roles extends Migration {
  override name = 'Migration20261126223000_organization_roles';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "organization_roles" ("id" uuid not null, "organization_id" uuid not null, "role" varchar(255) not null, "permission" jsonb not null, "created_at" timestamptz not null, "updated_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(
      `create index "organization_roles_organization_id_index" on "organization_roles" ("organization_id");`,
    );
    this.addSql(
      `alter table "organization_roles" add constraint "organization_roles_organization_id_role_unique" unique ("organization_id", "role");`,
    );
    this.addSql(
      `alter table "organization_roles" add constraint "organization_roles_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "organization_roles" cascade;`);
  }
}
