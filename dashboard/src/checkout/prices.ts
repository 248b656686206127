import { chargeTerms, firstRenewalAt, renewalPromise } from '../../../domain/charge-terms.ts';
import type { DiscountTerm } from '../../../domain/discounts.ts';
import type { CheckoutPublic, Price } from './api';
import { formatMoney } from './money';

/** The prices a buyer can pick here: live ones with an amount known up front. */
export const staticPrices = (prices: Price[]) =>
  prices.filter(
    (price) =>
      !price.is_archived &&
      (price.amount_type === 'fixed' ||
        price.amount_type === 'custom' ||
        price.amount_type === 'free' ||
        price.amount_type === 'seat_based'),
  );

export function intervalText(price: Price) {
  return price.type === 'recurring' && price.recurring_interval
    ? ` / ${price.recurring_interval}`
    : '';
}

export function priceText(price: Price): string {
  switch (price.amount_type) {
    case 'fixed':
      return `${formatMoney(price.price_amount, price.price_currency)}${intervalText(price)}`;
    case 'custom':
      return 'Pay what you want';
    case 'free':
      return 'Free';
    case 'seat_based':
      return `${formatMoney(price.price_per_seat, price.price_currency)} per seat${intervalText(price)}`;
    default:
      return 'Usage-based';
  }
}

/** A checkout's discount as how long it lasts; null: none. */
function discountTermOf(discount: CheckoutPublic['discount']): DiscountTerm | null {
  if (!discount) return null;
  return discount.duration === 'repeating'
    ? { duration: 'repeating', durationInMonths: discount.duration_in_months ?? 1 }
    : { duration: discount.duration };
}

/** The checkout's recurring charges in words (see chargeTerms); null for a one-time purchase. */
export function checkoutChargeTerms(checkout: CheckoutPublic): string | null {
  const price = checkout.product_price;
  const interval = price.type === 'recurring' ? price.recurring_interval : null;
  const trialInterval = checkout.active_trial_interval;
  const trialCount = checkout.active_trial_interval_count;
  return chargeTerms({
    amount: checkout.amount,
    discountedAmount: checkout.net_amount,
    currency: checkout.currency,
    interval,
    discount: discountTermOf(checkout.discount),
    trial: trialInterval && trialCount ? { interval: trialInterval, count: trialCount } : null,
  });
}

/**
 * The pay button's words: what happens now (pay, start a trial or subscription, get it free),
 * and for a subscription that it renews until canceled.
 */
export function submitLabel(checkout: CheckoutPublic): string {
  const price = checkout.product_price;
  const interval = price.type === 'recurring' ? price.recurring_interval : null;
  const action = checkout.is_payment_required
    ? `Pay ${formatMoney(checkout.amount_due, checkout.currency)}`
    : checkout.active_trial_interval
      ? 'Start free trial'
      : checkout.is_payment_form_required
        ? 'Start subscription'
        : 'Get it for free';
  return interval && !checkout.is_free_product_price
    ? `${action} — ${renewalPromise(interval)}`
    : action;
}

/**
 * When a subscription bought with this checkout is next charged, as the checkout tells it: at
 * its trial's end, else one interval after `start` (the purchase); null for a one-time purchase
 * or a free plan.
 */
export function nextBillingDateOf(checkout: CheckoutPublic, start: Date): Date | null {
  const price = checkout.product_price;
  if (price.type !== 'recurring' || !price.recurring_interval) return null;
  if (checkout.is_free_product_price) return null;
  const trialEnd = checkout.trial_end ? new Date(checkout.trial_end) : null;
  return firstRenewalAt(start, price.recurring_interval, trialEnd);
}

/** `2026-12-26T…` → `December 26, 2026`. */
export const longDate = (date: Date) =>
  new Intl.DateTimeFormat('en-US', { dateStyle: 'long' }).format(date);
