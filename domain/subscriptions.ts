import { z } from 'zod';
import { minimumSeats } from './prices.ts';

/**
 * A subscription's vocabulary and the change inputs the API and the dashboard's forms check
 * alike (browser-safe: the entities and commerce/subscriptions/schemas.ts import them from here).
 */

export const subscriptionStatuses = [
  'incomplete',
  'incomplete_expired',
  'trialing',
  'active',
  'past_due',
  'canceled',
  'unpaid',
] as const;
export type SubscriptionStatus = (typeof subscriptionStatuses)[number];

export const cancellationReasons = [
  'customer_service',
  'low_quality',
  'missing_features',
  'switched_service',
  'too_complex',
  'too_expensive',
  'unused',
  'other',
] as const;
export type CancellationReason = (typeof cancellationReasons)[number];

/** How a plan change's difference is billed: charged now, or by the next renewal. */
export const prorationBehaviors = ['invoice', 'prorate'] as const;
export type ProrationBehavior = (typeof prorationBehaviors)[number];

/** Why a subscription was canceled or revoked (Polar's `SubscriptionCancel`/`SubscriptionRevoke`). */
export const cancellationFields = {
  customer_cancellation_reason: z.enum(cancellationReasons).nullish(),
  customer_cancellation_comment: z.string().max(10_000).nullish(),
};

/** A plan change (Polar's `SubscriptionUpdateProduct`). */
export const productChangeInput = z.strictObject({
  product_id: z.uuid(),
  proration_behavior: z.enum(prorationBehaviors).nullish(),
});

/** A change of the seats a seat-based subscription bills (Polar's `SubscriptionUpdateSeats`). */
export const seatsChangeInput = z.strictObject({
  seats: z.int().min(minimumSeats, `A subscription has at least ${minimumSeats} seat.`),
  proration_behavior: z.enum(prorationBehaviors).nullish(),
});
