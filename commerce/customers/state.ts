import type { EntityManager as CoreEntityManager, EntityDictionary } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { announceChange } from '../../db/change-notifications.ts';
import { Customer, OutboxEvent } from '../../db/entities/index.ts';
import { resourceNotFound } from '../errors.ts';
import { appendEvent } from '../outbox.ts';
import {
  type CustomerState,
  type CustomerStateGrantRow,
  type CustomerStateMeterRow,
  type CustomerStateSubscriptionRow,
  customerStateWire,
  defaultBalanceCurrency,
} from './schemas.ts';

/** How a request names a customer: by id, or by the seller's own id for it. */
export type CustomerLookup = { id: string } | { externalId: string };

/**
 * The customer with its current benefit grants (and their benefit), its meters, its active
 * subscriptions and its balance (in the default currency), in one query: they come along as JSON arrays of rows. State is read far more often than it
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
    ) as active_subscriptions,
    (select coalesce(sum(amount), 0)::int from customer_balance_entry
      where customer_id = c.id and currency = ?) as balance
  from customers c
  where c.organization_id = ? and c.deleted_at is null
    and ${byExternalId ? 'c.external_id = ?' : 'c.id = ?'}`;

type CustomerStateRow = EntityDictionary<Customer> & {
  granted_benefits: CustomerStateGrantRow[];
  active_meters: CustomerStateMeterRow[];
  active_subscriptions: CustomerStateSubscriptionRow[];
  balance: number;
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
  const key = customerId ? customerStateKey(organizationId, customerId) : organizationId;
  return announceChange(em, 'customerState', key);
}

/** How a customer's state changes are announced (see announceCustomerStateChange). */
export const customerStateKey = (organizationId: string, customerId: string) =>
  `${organizationId}/${customerId}`;

/** What a live customer of the organization has now; null when there is none (deleted). */
async function findCustomerState(
  em: EntityManager,
  organizationId: string,
  lookup: CustomerLookup,
): Promise<CustomerState | null> {
  const byExternalId = !('id' in lookup);
  // Through the entity manager: inside a transaction, the state includes its own writes.
  const [row] = await em.execute<CustomerStateRow[]>(customerStateQuery(byExternalId), [
    defaultBalanceCurrency,
    organizationId,
    'id' in lookup ? lookup.id : lookup.externalId,
  ]);
  if (!row) return null;
  const { granted_benefits, active_meters, active_subscriptions, balance, ...customerRow } = row;
  return {
    customer: em.map(Customer, customerRow),
    grants: granted_benefits,
    meters: active_meters,
    subscriptions: active_subscriptions,
    balance: { balance, currency: defaultBalanceCurrency },
  };
}

/**
 * The `customer.state_changed` data of a subscription change that one statement writes (no
 * transaction reads the state after it): the customer's state as read now, with `subscription`
 * as the statement leaves it, listed while active or trialing. Null for a deleted customer.
 */
export async function customerStateWithSubscription(
  em: EntityManager,
  organizationId: string,
  customerId: string,
  subscription: Omit<CustomerStateSubscriptionRow, 'status'> & { status: string },
): Promise<ReturnType<typeof customerStateWire> | null> {
  const state = await findCustomerState(em, organizationId, { id: customerId });
  if (!state) return null;
  const others = state.subscriptions.filter((listed) => listed.id !== subscription.id);
  const { status } = subscription;
  const listed: CustomerStateSubscriptionRow[] =
    status === 'active' || status === 'trialing'
      ? [
          ...others,
          { ...subscription, status: status as CustomerStateSubscriptionRow['status'] },
        ].sort(
          (a, b) =>
            Date.parse(a.started_at ?? '') - Date.parse(b.started_at ?? '') ||
            a.id.localeCompare(b.id),
        )
      : others;
  return customerStateWire({ ...state, subscriptions: listed });
}

/** What a live customer of the organization has now. */
export async function getCustomerState(
  em: EntityManager,
  organizationId: string,
  lookup: CustomerLookup,
): Promise<CustomerState> {
  const state = await findCustomerState(em, organizationId, lookup);
  if (!state) throw resourceNotFound('Customer not found');
  return state;
}

/**
 * The `customer.state_changed` event each transaction recorded, per customer id: a transaction
 * records one per customer, however many of its writes change what the customer has.
 */
const stateEventsOfTransaction = new WeakMap<object, Map<string, string>>();

function stateEventsRecordedIn(em: EntityManager): Map<string, string> {
  const transaction = em.getTransactionContext<object>();
  // Outside a transaction each write commits alone: nothing to share with the next.
  if (!transaction) return new Map();
  let recorded = stateEventsOfTransaction.get(transaction);
  if (!recorded) {
    recorded = new Map();
    stateEventsOfTransaction.set(transaction, recorded);
  }
  return recorded;
}

/**
 * What the customer has changed, inside the transaction that changes it (after its writes):
 * cached states are told (announceCustomerStateChange) and `customer.state_changed` records the
 * state as the transaction now sees it. Called again in the same transaction (a grant that also
 * credits a meter), the event recorded first takes the newer state and moves after the events
 * recorded meanwhile, so the transaction sends one, with the state it commits. A deleted
 * customer has no state to send.
 */
export async function recordCustomerStateChange(
  em: EntityManager,
  organizationId: string,
  customerId: string,
): Promise<void> {
  await announceCustomerStateChange(em, organizationId, customerId);
  await em.flush();
  const state = await findCustomerState(em, organizationId, { id: customerId });
  if (!state) return;
  const data = customerStateWire(state);
  const recorded = stateEventsRecordedIn(em);
  const eventId = recorded.get(customerId);
  if (eventId) {
    await em.nativeUpdate(OutboxEvent, { id: eventId }, { data, createdAt: new Date() });
    return;
  }
  const event = appendEvent(em, organizationId, 'customer.state_changed', data);
  await em.flush();
  recorded.set(customerId, event.id);
}
