/**
 * The preview of a plan change (another product, or other seats), computed as the server will
 * (commerce/subscriptions/changes.ts): the same target price, the same pure `prorate` at the
 * subscription's time (its test clock's when it has one), the same lines and the same rule for
 * what is charged now.
 */
import { priceAmountOf } from '../../../../domain/checkout-amounts.ts';
import { isStaticPrice, minimumSeats, planLabel } from '../../../../domain/prices.ts';
import { prorate } from '../../../../domain/proration.ts';
import type { ProrationBehavior } from '../../../../domain/subscriptions.ts';
import type { Product } from '../products/api';
import { type Subscription, statusLabels } from './api';

export interface PreviewLine {
  label: string;
  amount: number;
}

export type PlanChangePreview =
  | { ok: false; refusal: string }
  | {
      ok: true;
      /** What the subscription bills per period after the change. */
      newAmount: number;
      lines: PreviewLine[];
      /** Charged on the saved card at once (invoice, positive difference). */
      chargedNow: number;
      /** Added to the next renewal order (negative: credited to the customer balance now). */
      carriedToRenewal: number;
    };

/** The static price the server switches to: the first live one in the subscription's currency. */
function targetPrice(subscription: Subscription, product: Product) {
  return product.prices.find(
    (price) =>
      !price.is_archived &&
      isStaticPrice(price.amount_type) &&
      ('price_currency' in price ? price.price_currency : subscription.currency) ===
        subscription.currency,
  );
}

/** The amount a wire price charges per period for `seats`, by the server's own rule. */
function amountOf(price: Product['prices'][number], seats: number | null): number {
  const wire: Record<string, unknown> = price;
  const amount = (name: string) => (typeof wire[name] === 'number' ? wire[name] : null);
  return priceAmountOf(
    {
      amountType: price.amount_type,
      priceAmount: amount('price_amount'),
      minimumAmount: amount('minimum_amount'),
      maximumAmount: amount('maximum_amount'),
      presetAmount: amount('preset_amount'),
      pricePerSeat: amount('price_per_seat'),
    },
    { seats },
  );
}

/** Why the subscription cannot change what it bills now, or null when it can. */
function statusRefusal(subscription: Subscription): string | null {
  if (subscription.status === 'active' || subscription.status === 'trialing') return null;
  return `A ${statusLabels[subscription.status].toLowerCase()} subscription cannot change its plan until its renewal is paid.`;
}

/** What the subscription's plan is called on the server's proration lines (seats named). */
const currentPlanLabel = (subscription: Subscription) =>
  planLabel(subscription.product.name, subscription.seats);

export function previewPlanChange(
  subscription: Subscription,
  product: Product,
  behavior: ProrationBehavior,
  now: Date,
): PlanChangePreview {
  if (product.id === subscription.product_id) {
    return { ok: false, refusal: 'The subscription is on this product already.' };
  }
  const refusal = statusRefusal(subscription);
  if (refusal) return { ok: false, refusal };
  if (product.is_archived) return { ok: false, refusal: 'The product is archived.' };
  if (product.recurring_interval !== subscription.recurring_interval) {
    return {
      ok: false,
      refusal: `The product must renew every ${subscription.recurring_interval}, like the subscription.`,
    };
  }
  const price = targetPrice(subscription, product);
  if (!price) {
    return {
      ok: false,
      refusal: `The product has no available price in ${subscription.currency.toUpperCase()}.`,
    };
  }
  // A seat-based price keeps the subscription's seats (the fewest when it had none).
  const seats = price.amount_type === 'seat_based' ? (subscription.seats ?? minimumSeats) : null;
  const newPlan = planLabel(product.name, seats);
  return prorationPreview(subscription, newPlan, amountOf(price, seats), behavior, now);
}

/**
 * The preview of billing `seats` instead: the subscription's seat-based price times the new
 * count; refused for other prices, fewer than the fewest seats, or the seats it has.
 */
export function previewSeatsChange(
  subscription: Subscription,
  seats: number,
  behavior: ProrationBehavior,
  now: Date,
): PlanChangePreview {
  const price = subscription.prices.find((each) => each.amount_type === 'seat_based');
  if (!price || !('price_per_seat' in price)) {
    return { ok: false, refusal: 'The subscription’s price is not seat-based.' };
  }
  if (!Number.isInteger(seats) || seats < minimumSeats) {
    return { ok: false, refusal: `Enter a whole number of seats, at least ${minimumSeats}.` };
  }
  if (seats === subscription.seats) {
    return { ok: false, refusal: `The subscription has ${seats} seats already.` };
  }
  const refusal = statusRefusal(subscription);
  if (refusal) return { ok: false, refusal };
  const newPlan = planLabel(subscription.product.name, seats);
  return prorationPreview(subscription, newPlan, price.price_per_seat * seats, behavior, now);
}

/** The proration of moving to a plan called `newPlan` billing `newAmount` a period, at `now`. */
function prorationPreview(
  subscription: Subscription,
  newPlan: string,
  newAmount: number,
  behavior: ProrationBehavior,
  now: Date,
): PlanChangePreview {
  // A trial has paid nothing: it changes for nothing.
  const periodEnd = subscription.current_period_end;
  if (subscription.status === 'trialing' || !periodEnd) {
    return { ok: true, newAmount, lines: [], chargedNow: 0, carriedToRenewal: 0 };
  }
  const { unusedCredit, remainingCharge, difference } = prorate({
    oldAmount: subscription.amount,
    newAmount,
    periodStart: new Date(subscription.current_period_start),
    periodEnd: new Date(periodEnd),
    at: now,
  });
  const lines = [
    { label: `Unused time on ${currentPlanLabel(subscription)}`, amount: unusedCredit },
    { label: `Remaining time on ${newPlan}`, amount: remainingCharge },
  ].filter((line) => line.amount !== 0);
  const invoiced = behavior === 'invoice' && difference > 0;
  return {
    ok: true,
    newAmount,
    lines,
    chargedNow: invoiced ? difference : 0,
    carriedToRenewal: invoiced ? 0 : difference,
  };
}
