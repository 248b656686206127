import { Migration } from '@mikro-orm/migrations';

/**
 * Seller-defined tax rates (issue 22, option 2; domain/tax.ts): the rates, one per organization,
 * country and subdivision (nulls not distinct, so a country has one country-wide rate); the
 * organization's tax settings; each product's tax behaviour; and the tax lines of checkouts and
 * orders, kept for invoices and exports.
 */
export class Migration20261127053000_seller_tax_rates extends Migration {
  override name = 'Migration20261127053000_seller_tax_rates';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "tax_rates" ("id" uuid not null, "organization_id" uuid not null, "country" varchar(2) not null, "subdivision" varchar(3) null, "rate_bps" int not null, "display_name" varchar(255) not null, "inclusive" boolean not null, "created_at" timestamptz not null, "modified_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "tax_rates" add constraint "tax_rates_organization_id_country_subdivision_unique" unique nulls not distinct ("organization_id", "country", "subdivision");`,
    );
    this.addSql(
      `alter table "tax_rates" add constraint "tax_rates_rate_bps_check" check ("rate_bps" between 0 and 10000);`,
    );
    this.addSql(
      `alter table "tax_rates" add constraint "tax_rates_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "organizations" add column "tax_settings" jsonb not null default '{"mode":"none","homeCountry":null,"pricesIncludeTax":false}';`,
    );
    this.addSql(
      `alter table "products" add column "tax_behavior" text not null default 'taxable';`,
    );
    this.addSql(`alter table "checkouts" add column "tax_lines" jsonb not null default '[]';`);
    this.addSql(`alter table "orders" add column "tax_lines" jsonb not null default '[]';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "tax_rates" cascade;`);
    this.addSql(`alter table "organizations" drop column "tax_settings";`);
    this.addSql(`alter table "products" drop column "tax_behavior";`);
    this.addSql(`alter table "checkouts" drop column "tax_lines";`);
    this.addSql(`alter table "orders" drop column "tax_lines";`);
  }
}
