import type { Subscription } from '../../db/entities/index.ts';
import { customerWire } from '../customers/schemas.ts';
import { discountBaseWire } from '../discounts/schemas.ts';
import { isoDateTime, isoDateTimeOrNull } from '../http/wire.ts';
import type { PriceWire } from '../products/schemas.ts';
import type { ProductWire } from '../products/service.ts';

export const subscriptionSortFields = [
  'customer',
  'status',
  'started_at',
  'current_period_end',
  'amount',
  'product',
  'discount',
] as const;

/**
 * The subscription's own fields (Polar's `OrderSubscription`, embedded by orders): no customer,
 * product, discount, prices or meters.
 */
export function subscriptionCoreWire(subscription: Subscription) {
  return {
    id: subscription.id,
    created_at: isoDateTime(subscription.createdAt),
    modified_at: isoDateTimeOrNull(subscription.modifiedAt),
    metadata: subscription.metadata,
    amount: subscription.amount,
    currency: subscription.currency,
    recurring_interval: subscription.recurringInterval,
    status: subscription.status,
    current_period_start: isoDateTime(subscription.currentPeriodStart),
    current_period_end: isoDateTimeOrNull(subscription.currentPeriodEnd),
    trial_start: isoDateTimeOrNull(subscription.trialStart),
    trial_end: isoDateTimeOrNull(subscription.trialEnd),
    cancel_at_period_end: subscription.cancelAtPeriodEnd,
    canceled_at: isoDateTimeOrNull(subscription.canceledAt),
    started_at: isoDateTimeOrNull(subscription.startedAt),
    ends_at: isoDateTimeOrNull(subscription.endsAt),
    ended_at: isoDateTimeOrNull(subscription.endedAt),
    customer_id: subscription.customer.id,
    product_id: subscription.product.id,
    discount_id: subscription.discount?.id ?? null,
    checkout_id: subscription.checkoutId ?? null,
    customer_cancellation_reason: subscription.customerCancellationReason ?? null,
    customer_cancellation_comment: subscription.customerCancellationComment ?? null,
  };
}
export type SubscriptionCoreWire = ReturnType<typeof subscriptionCoreWire>;

/**
 * A subscription as /v1 answers it (Polar's `Subscription`): with its customer and discount
 * (loaded), its product and the prices it bills, as serialized by the caller.
 */
export function subscriptionWire(
  subscription: Subscription,
  product: ProductWire,
  prices: PriceWire[],
) {
  return {
    ...subscriptionCoreWire(subscription),
    custom_field_data: subscription.customFieldData,
    customer: customerWire(subscription.customer),
    product,
    discount: subscription.discount ? discountBaseWire(subscription.discount) : null,
    prices,
    // Metered billing of subscriptions comes with the subscriptions issue.
    meters: [] as never[],
  };
}
export type SubscriptionWire = ReturnType<typeof subscriptionWire>;
