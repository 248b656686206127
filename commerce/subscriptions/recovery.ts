import type { EntityManager } from '@mikro-orm/postgresql';
import { Order, Subscription } from '../../db/entities/index.ts';
import type { RenewalRecoverer } from '../../db/entities/subscription.ts';
import { findPage, inList, type Page } from '../../db/listing.ts';
import { declineReasonOf, needsAuthentication } from '../../domain/decline-reasons.ts';
import { formatMoney } from '../../domain/money.ts';
import { portalSignInUrl } from '../customer-sessions/service.ts';
import { commerceError } from '../errors.ts';
import { renewalOrderIdOf } from './lifecycle.ts';

/**
 * What the customer is told of a failed renewal, and the link that lets them fix it alone:
 * it signs them into the portal on the subscription, where a new card (or authenticating the
 * payment) pays the open renewal order at once.
 */
export interface FailedRenewalNotice {
  to: string;
  organizationName: string;
  productName: string;
  /** The open renewal order's total, formatted with its currency. */
  amount: string;
  reason: string;
  authenticationRequired: boolean;
  nextAttemptAt: Date | null;
  fixUrl: string;
}

/**
 * The notice of the subscription's failed renewal (`orderId`: its renewal order; the open one
 * when not named). Refused with NotPastDueSubscription when no renewal is failing.
 */
export async function failedRenewalNotice(
  em: EntityManager,
  subscriptionId: string,
  publicUrl: string,
  orderId?: string,
): Promise<FailedRenewalNotice> {
  const subscription = await em.findOneOrFail(
    Subscription,
    { id: subscriptionId },
    { populate: ['customer', 'product', 'organization'] },
  );
  const periodEnd = subscription.currentPeriodEnd;
  const openOrderId = periodEnd && renewalOrderIdOf(subscription.id, periodEnd);
  const order = await em.findOne(Order, { id: orderId ?? openOrderId ?? '' });
  if (!order) throw commerceError('NotPastDueSubscription');
  const code = subscription.lastPaymentError?.code;
  const { slug } = subscription.organization;
  return {
    to: subscription.customer.email,
    organizationName: subscription.organization.name,
    productName: subscription.product.name,
    // What the card owes: the total less what the customer's balance paid of it.
    amount: formatMoney(order.totalAmount - order.fromBalanceAmount, order.currency),
    reason: declineReasonOf(code) ?? 'The payment failed.',
    authenticationRequired: needsAuthentication(code),
    nextAttemptAt: subscription.nextPaymentAttemptAt ?? null,
    fixUrl: await portalSignInUrl(em, {
      customerId: subscription.customer.id,
      returnTo: `/portal/${encodeURIComponent(slug)}?subscription_id=${subscription.id}`,
      publicUrl,
    }),
  };
}

/**
 * A page of the organization's subscriptions whose last failed renewal was paid after all
 * (by `recoverers` when given), the latest recovery first, customers and products loaded:
 * what the failed-renewals page shows beside the renewals still failing.
 */
export function listRecoveredRenewals(
  em: EntityManager,
  organizationId: string,
  { page, recoverers }: { page: Page; recoverers: RenewalRecoverer[] },
): Promise<[Subscription[], number]> {
  return findPage(em, Subscription, {
    where: [
      { organization: organizationId, recoveredAt: { $ne: null } },
      inList('recoveredBy', recoverers),
    ],
    thenBy: [{ recoveredAt: 'desc' }, { id: 'asc' }],
    page,
    populate: ['customer', 'product'],
  });
}

/**
 * The customer's renewals a new card could pay now: each past-due or unpaid subscription of
 * theirs with its open renewal order (still pending), oldest subscription first.
 */
export async function openRenewalOrdersOf(
  em: EntityManager,
  customerId: string,
): Promise<{ subscriptionId: string; orderId: string }[]> {
  const failing = await em.find(
    Subscription,
    { customer: customerId, status: { $in: ['past_due', 'unpaid'] }, endedAt: null },
    { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] },
  );
  const open = failing.flatMap((subscription) =>
    subscription.currentPeriodEnd
      ? [
          {
            subscriptionId: subscription.id,
            orderId: renewalOrderIdOf(subscription.id, subscription.currentPeriodEnd),
          },
        ]
      : [],
  );
  if (open.length === 0) return [];
  const pending = await em.find(
    Order,
    { id: { $in: open.map((renewal) => renewal.orderId) }, status: 'pending' },
    { fields: ['id'] },
  );
  const pendingIds = new Set(pending.map((order) => order.id));
  return open.filter((renewal) => pendingIds.has(renewal.orderId));
}
