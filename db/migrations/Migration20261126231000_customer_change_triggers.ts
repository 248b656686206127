import { Migration } from '@mikro-orm/migrations';

/** The tables whose rows the customer state view and the customer portal show. */
const customerTables = [
  'customers',
  'subscriptions',
  'orders',
  'payments',
  'refunds',
  'benefit_grants',
  'license_keys',
  'license_key_activations',
  'customer_oauth_accounts',
];

/**
 * The database itself announces (db/change-notifications.ts) every write to what a customer sees,
 * as `<organization>/<customer>` on the customer state channel, and every change to an
 * organization's settings on its catalog channel, so that no writer can leave a cached portal
 * answer, state view or storefront stale by forgetting to. PostgreSQL delivers them at commit,
 * once per transaction and payload however many rows changed.
 */
export class Migration20261126231000_customer_change_triggers extends Migration {
  override name = 'Migration20261126231000_customer_change_triggers';

  override up(): void | Promise<void> {
    this.addSql(`
      create function tollgate_announce_customer_change() returns trigger
      language plpgsql as $$
      declare
        changed jsonb := case when tg_op = 'DELETE' then to_jsonb(old) else to_jsonb(new) end;
        organization text := changed->>'organization_id';
        customer text := case when tg_table_name = 'customers' then changed->>'id'
                              else changed->>'customer_id' end;
      begin
        if tg_table_name = 'license_key_activations' then
          select organization_id, customer_id into organization, customer
            from license_keys where id = (changed->>'license_key_id')::uuid;
        elsif tg_table_name = 'payments' then
          select customer_id into customer from orders where id = (changed->>'order_id')::uuid;
        elsif organization is null then
          select organization_id into organization from customers where id = customer::uuid;
        end if;
        if organization is not null and customer is not null then
          perform pg_notify('tollgate_customer_state_changed', organization || '/' || customer);
        end if;
        return null;
      end $$;`);
    // What the storefront and every product answer show of their seller. Its invoice counter
    // moves with every order and shows nowhere: not a change.
    this.addSql(`
      create function tollgate_announce_organization_change() returns trigger
      language plpgsql as $$
      begin
        perform pg_notify('tollgate_catalog_changed', old.id::text);
        return null;
      end $$;`);
    this.addSql(
      `create trigger "organizations_announce_catalog_change" after update on "organizations"
       for each row when ((to_jsonb(old) - 'last_invoice_number') is distinct from (to_jsonb(new) - 'last_invoice_number'))
       execute function tollgate_announce_organization_change();`,
    );
    this.addSql(
      `create trigger "organizations_announce_catalog_removal" after delete on "organizations"
       for each row execute function tollgate_announce_organization_change();`,
    );
    for (const table of customerTables) {
      this.addSql(
        `create trigger "${table}_announce_customer_change" after insert or update or delete on "${table}"
         for each row execute function tollgate_announce_customer_change();`,
      );
    }
  }

  override down(): void | Promise<void> {
    for (const table of customerTables) {
      this.addSql(`drop trigger "${table}_announce_customer_change" on "${table}";`);
    }
    this.addSql('drop function tollgate_announce_customer_change();');
    this.addSql('drop trigger "organizations_announce_catalog_change" on "organizations";');
    this.addSql('drop trigger "organizations_announce_catalog_removal" on "organizations";');
    this.addSql('drop function tollgate_announce_organization_change();');
  }
}
