import type { EntityManager } from '@mikro-orm/postgresql';
import { Subscription } from '../../db/entities/index.ts';
import { decimalAmount } from '../../domain/money.ts';
import { isoDateTime } from '../wire.ts';
import { activeStatuses } from './service.ts';

/**
 * The columns of Polar's subscriptions export, as its server wrote them when the SDK this API
 * follows (0.35.x) was current: polar/subscription/endpoints.py, `export`.
 */
export const subscriptionExportHeader = [
  'Email',
  'Created At',
  'Active',
  'Product',
  'Price',
  'Currency',
  'Interval',
] as const;

/** One subscription as a row of the export; the price is its amount as exact decimal text. */
function subscriptionExportRow(subscription: Subscription): string[] {
  return [
    subscription.customer.email,
    isoDateTime(subscription.createdAt),
    String(activeStatuses.includes(subscription.status)),
    subscription.product.name,
    decimalAmount(subscription.amount),
    subscription.currency,
    subscription.recurringInterval,
  ];
}

/** Every subscription of the organization as export rows, oldest first, read in chunks. */
export async function* subscriptionExportRows(em: EntityManager, organizationId: string) {
  const subscriptions = em.stream(Subscription, {
    where: { organization: organizationId },
    populate: ['customer', 'product'],
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    chunkSize: 500,
    disableIdentityMap: true,
  });
  for await (const subscription of subscriptions) yield subscriptionExportRow(subscription);
}
