import { Migration } from '@mikro-orm/migrations';

/**
 * Invoices a finance team can file: the organization's legal details and branding
 * (`invoice_settings`), and a credit note number per succeeded refund, counted per organization
 * as invoice numbers are. The credit note counter, like the invoice one, shows nowhere on the
 * storefront, so moving it is no catalog change.
 */
export class Migration20261127050000_invoice_branding_credit_notes extends Migration {
  override name = 'Migration20261127050000_invoice_branding_credit_notes';

  override up(): void | Promise<void> {
    this.addSql(`alter table "organizations" add "invoice_settings" jsonb not null default '{}';`);
    this.addSql(
      `alter table "organizations" add "last_credit_note_number" int not null default 0;`,
    );
    this.addSql(`alter table "refunds" add "credit_note_number" varchar(255) null;`);
    this.addSql(
      `alter table "refunds" add constraint "refunds_organization_id_credit_note_number_unique" unique ("organization_id", "credit_note_number");`,
    );
    this.addSql('drop trigger "organizations_announce_catalog_change" on "organizations";');
    this.addSql(
      `create trigger "organizations_announce_catalog_change" after update on "organizations"
       for each row when ((to_jsonb(old) - 'last_invoice_number' - 'last_credit_note_number') is distinct from (to_jsonb(new) - 'last_invoice_number' - 'last_credit_note_number'))
       execute function tollgate_announce_organization_change();`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql('drop trigger "organizations_announce_catalog_change" on "organizations";');
    this.addSql(
      `create trigger "organizations_announce_catalog_change" after update on "organizations"
       for each row when ((to_jsonb(old) - 'last_invoice_number') is distinct from (to_jsonb(new) - 'last_invoice_number'))
       execute function tollgate_announce_organization_change();`,
    );
    this.addSql(`alter table "refunds" drop column "credit_note_number";`);
    this.addSql(`alter table "organizations" drop column "last_credit_note_number";`);
    this.addSql(`alter table "organizations" drop column "invoice_settings";`);
  }
}
