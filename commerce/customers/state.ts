import type { EntityManager as CoreEntityManager, EntityDictionary } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { announceChange } from '../../db/change-notifications.ts';
import { Customer } from '../../db/entities/index.ts';
import { resourceNotFound } from '../errors.ts';
import type {
  CustomerState,
  CustomerStateGrantRow,
  CustomerStateMeterRow,
  CustomerStateSubscriptionRow,
} from './schemas.ts';

/** How a request names a customer: by id, or by the seller's own id for it. */
export type CustomerLookup = { id: string } | { externalId: string };

/**
 * The customer with its current benefit grants (and their benefit), its meters and its active
 * subscriptions, in one query: they come along as JSON arrays of rows. State is read far more often than it
 * changes, so it costs one round trip.
 */
const customerStateQuery = (byExternalId: boolean) => `
  select c.*,
    (select coalesce(json_agg(g order by g.granted_at, g.id), '[]')
      from (select bg.id, bg.created_at, bg.modified_at, bg.granted_at, bg.benefit_id, bg.properties,
          b.type as benefit_type, b.metadata as benefit_metadata
        from benefit_grants bg join benefits b on b.id = bg.benefit_id
        where bg.customer_id = c.id and bg.granted_at is not null and bg.revoked_at is null) g
    ) as granted_benefits,
    (select coalesce(json_agg(m order by m.created_at, m.id), '[]')
      from (select id, created_at, modified_at, meter_id, consumed_units::text, credited_units,
          (credited_units - consumed_units)::text as balance
        from customer_meters where customer_id = c.id) m
    ) as active_meters,
    (select coalesce(json_agg(s order by s.started_at, s.id), '[]')
      from (select id, created_at, modified_at, custom_field_data, metadata, status, amount,
          currency, recurring_interval, current_period_start, current_period_end, trial_start,
          trial_end, cancel_at_period_end, canceled_at, started_at, ends_at, product_id, discount_id
        from subscriptions where customer_id = c.id and status in ('active', 'trialing')) s
    ) as active_subscriptions
  from customers c
  where c.organization_id = ? and c.deleted_at is null
    and ${byExternalId ? 'c.external_id = ?' : 'c.id = ?'}`;

type CustomerStateRow = EntityDictionary<Customer> & {
  granted_benefits: CustomerStateGrantRow[];
  active_meters: CustomerStateMeterRow[];
  active_subscriptions: CustomerStateSubscriptionRow[];
};

/**
 * Tells every API process that what a customer has (its state view) changed, when the
 * transaction commits; without `customerId`, for all customers of the organization. Every
 * writer of what the state view reads (customers, grants, customer meters, subscriptions) calls
 * it, or cached states go stale.
 */
export function announceCustomerStateChange(
  em: CoreEntityManager,
  organizationId: string,
  customerId?: string,
) {
  const key = customerId ? `${organizationId}/${customerId}` : organizationId;
  return announceChange(em, 'customerState', key);
}

/** What a live customer of the organization has now. */
export async function getCustomerState(
  em: EntityManager,
  organizationId: string,
  lookup: CustomerLookup,
): Promise<CustomerState> {
  const byExternalId = !('id' in lookup);
  // Through the entity manager: inside a transaction, the state includes its own writes.
  const [row] = await em.execute<CustomerStateRow[]>(customerStateQuery(byExternalId), [
    organizationId,
    'id' in lookup ? lookup.id : lookup.externalId,
  ]);
  if (!row) throw resourceNotFound('Customer not found');
  const { granted_benefits, active_meters, active_subscriptions, ...customerRow } = row;
  return {
    customer: em.map(Customer, customerRow),
    grants: granted_benefits,
    meters: active_meters,
    subscriptions: active_subscriptions,
  };
}
