import type { QueryOrderMap } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { invalidField } from '../../core/errors.ts';
import { type Customer, Organization, Subscription } from '../../db/entities/index.ts';
import { subscriptionSettingsOf } from '../../db/entities/organization.ts';
import { findPage, inList, type ListQuery, likePattern } from '../../db/listing.ts';
import type { SubscriptionChange } from '../../domain/subscription-schedule.ts';
import { resourceNotFound } from '../errors.ts';
import { organizationWire } from '../organizations/schemas.ts';
import { hasEnded } from './changes.ts';
import {
  type CustomerSubscriptionWire,
  type customerSubscriptionSortFields,
  customerSubscriptionWire,
  type SubscriptionWire,
} from './schemas.ts';
import { serializeSubscriptions } from './service.ts';

type CustomerSubscriptionSortField = (typeof customerSubscriptionSortFields)[number];

export interface CustomerSubscriptionFilter {
  organizationIds: string[];
  productIds: string[];
  /** Active (or trialing) ones only, or only the others. */
  active?: boolean | undefined;
  /** Searched in the product's name. */
  query?: string | undefined;
}

const activeStatuses: Subscription['status'][] = ['active', 'trialing'];

const sortKeys: Record<
  CustomerSubscriptionSortField,
  (direction: 'asc' | 'desc') => QueryOrderMap<Subscription>
> = {
  started_at: (direction) => ({ startedAt: direction }),
  amount: (direction) => ({ amount: direction }),
  status: (direction) => ({ status: direction }),
  organization: (direction) => ({ organization: { name: direction } }),
  product: (direction) => ({ product: { name: direction } }),
};

/** A page of the customer's own subscriptions matching `query`, and how many match. */
export function listCustomerSubscriptions(
  em: EntityManager,
  customer: Customer,
  query: ListQuery<CustomerSubscriptionFilter, CustomerSubscriptionSortField>,
): Promise<[Subscription[], number]> {
  const { active } = query;
  return findPage(em, Subscription, {
    where: [
      { customer: customer.id },
      inList('organization', query.organizationIds),
      inList('product', query.productIds),
      active !== undefined && {
        status: active ? { $in: activeStatuses } : { $nin: activeStatuses },
      },
      query.query && { product: { name: { $ilike: likePattern(query.query) } } },
    ],
    sorting: query.sorting,
    sortKeys,
    page: query.page,
  });
}

/** One of the customer's own subscriptions; another customer's is not found. */
export async function getCustomerSubscription(
  em: EntityManager,
  customer: Customer,
  id: string,
): Promise<Subscription> {
  const subscription = await em.findOne(Subscription, { id, customer: customer.id });
  if (!subscription) throw resourceNotFound('Subscription not found');
  return subscription;
}

/** /v1's subscriptions as their customer sees them, each organization read once. */
export async function toCustomerSubscriptions(
  em: EntityManager,
  wires: SubscriptionWire[],
): Promise<CustomerSubscriptionWire[]> {
  const organizationIds = [...new Set(wires.map((wire) => wire.product.organization_id))];
  const organizations = organizationIds.length
    ? await em.find(Organization, { id: { $in: organizationIds } })
    : [];
  const organizationOf = new Map(organizations.map((org) => [org.id, organizationWire(org)]));
  return wires.map((wire) => {
    const organization = organizationOf.get(wire.product.organization_id);
    if (!organization) throw new Error(`organization ${wire.product.organization_id} not found`);
    return customerSubscriptionWire(wire, organization);
  });
}

/** Subscriptions as their customer sees them (Polar's `CustomerSubscription`). */
export async function serializeCustomerSubscriptions(
  em: EntityManager,
  subscriptions: Subscription[],
  publicUrl: string,
): Promise<CustomerSubscriptionWire[]> {
  return toCustomerSubscriptions(em, await serializeSubscriptions(em, subscriptions, publicUrl));
}

/**
 * What a customer may ask of its subscription beyond what the seller may: a plan or seats
 * change only where the organization lets customers change their subscriptions
 * (`allow_customer_updates`); the workflow then holds the target to the seller's rules (a live
 * recurring product of the same organization, interval and currency; a seat-based price). Cancels are always the customer's to ask.
 */
export async function assertCustomerMayChange(
  em: EntityManager,
  subscription: Subscription,
  change: SubscriptionChange,
): Promise<void> {
  // An ended subscription is refused as such (AlreadyCanceledSubscription) by the change itself.
  const planChange = change.kind === 'product' || change.kind === 'seats';
  if (!planChange || hasEnded(subscription)) return;
  const organization = await em.findOneOrFail(Organization, subscription.organization.id);
  if (!subscriptionSettingsOf(organization).allowCustomerUpdates) {
    const field = change.kind === 'seats' ? 'seats' : 'product_id';
    throw invalidField(['body', field], 'The seller does not let customers change plans.');
  }
}
