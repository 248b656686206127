import { Migration } from '@mikro-orm/migrations';

export class Migration20261122163120_organizations extends Migration {
  override name = 'Migration20261122163120_organizations';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "organizations" ("id" uuid not null, "name" varchar(255) not null, "slug" varchar(255) not null, "logo" text null, "metadata" text null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "organizations" add constraint "organizations_slug_unique" unique ("slug");`,
    );

    this.addSql(
      `create table "teams" ("id" uuid not null, "organization_id" uuid not null, "name" varchar(255) not null, "created_at" timestamptz not null, "updated_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`create index "teams_organization_id_index" on "teams" ("organization_id");`);

    this.addSql(
      `create table "team_members" ("id" uuid not null, "team_id" uuid not null, "user_id" uuid not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "team_members_team_id_index" on "team_members" ("team_id");`);
    this.addSql(`create index "team_members_user_id_index" on "team_members" ("user_id");`);
    this.addSql(
      `alter table "team_members" add constraint "team_members_team_id_user_id_unique" unique ("team_id", "user_id");`,
    );

    this.addSql(
      `create table "members" ("id" uuid not null, "organization_id" uuid not null, "user_id" uuid not null, "role" varchar(255) not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "members_organization_id_index" on "members" ("organization_id");`);
    this.addSql(`create index "members_user_id_index" on "members" ("user_id");`);
    this.addSql(
      `alter table "members" add constraint "members_organization_id_user_id_unique" unique ("organization_id", "user_id");`,
    );

    this.addSql(
      `create table "invitations" ("id" uuid not null, "organization_id" uuid not null, "email" varchar(255) not null, "role" varchar(255) not null, "status" text not null default 'pending', "team_id" uuid null, "inviter_id" uuid not null, "expires_at" timestamptz not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "invitations_organization_id_index" on "invitations" ("organization_id");`,
    );
    this.addSql(`create index "invitations_email_index" on "invitations" ("email");`);

    this.addSql(
      `alter table "sessions" add "active_organization_id" uuid null, add "active_team_id" uuid null;`,
    );

    this.addSql(
      `alter table "teams" add constraint "teams_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "team_members" add constraint "team_members_team_id_foreign" foreign key ("team_id") references "teams" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "team_members" add constraint "team_members_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "members" add constraint "members_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "members" add constraint "members_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "invitations" add constraint "invitations_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "invitations" add constraint "invitations_team_id_foreign" foreign key ("team_id") references "teams" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "invitations" add constraint "invitations_inviter_id_foreign" foreign key ("inviter_id") references "users" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "invitations" add constraint "invitations_status_check" check ("status" in ('pending', 'accepted', 'rejected', 'canceled'));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "teams" drop constraint "teams_organization_id_foreign";`);
    this.addSql(`alter table "members" drop constraint "members_organization_id_foreign";`);
    this.addSql(`alter table "invitations" drop constraint "invitations_organization_id_foreign";`);
    this.addSql(`alter table "team_members" drop constraint "team_members_team_id_foreign";`);
    this.addSql(`alter table "invitations" drop constraint "invitations_team_id_foreign";`);

    this.addSql(`drop table if exists "organizations" cascade;`);
    this.addSql(`drop table if exists "teams" cascade;`);
    this.addSql(`drop table if exists "team_members" cascade;`);
    this.addSql(`drop table if exists "members" cascade;`);
    this.addSql(`drop table if exists "invitations" cascade;`);

    this.addSql(
      `alter table "sessions" drop column "active_organization_id", drop column "active_team_id";`,
    );
  }
}
