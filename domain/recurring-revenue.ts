/**
 * What a subscription brings in a month, as the MRR metrics count it: what its static price bills
 * each period (a pay-what-you-want price what the buyer chose, a seat-based price its seats),
 * less its discount while the discount applies, per month. Metered usage is left out: it is only
 * known once the period has closed. Amounts are integer minor units, kept × 12 so every interval
 * is exact until the one final rounding.
 */
import { type BillingInterval, nextBillingPeriod } from './billing-periods.ts';
import { type CheckoutPriceFields, priceAmountOf } from './checkout-amounts.ts';
import {
  addMonths,
  type DiscountReduction,
  type DiscountTerm,
  discountAmount,
} from './discounts.ts';

/** Months × 12 in one period: a year is 12 of them, a month 12, a week 4, a day 30 (Polar's). */
const twelfthsOfMonthPerPeriod: Record<BillingInterval, number> = {
  year: 1,
  month: 12,
  week: 48,
  day: 360,
};

/** An amount billed every `interval`, per month × 12 (exact in integers). */
export const monthlyTimesTwelve = (amount: number, interval: BillingInterval) =>
  amount * twelfthsOfMonthPerPeriod[interval];

/** What the MRR metrics read of a subscription. */
export interface RecurringCharge {
  interval: BillingInterval;
  /** Its static price; null when it bills metered prices only. */
  price: CheckoutPriceFields | null;
  /** What that price bills: the amount chosen at checkout (pay what you want), the subscription's seats. */
  choice: { amount?: number | null; seats?: number | null };
  discount: (DiscountReduction & DiscountTerm) | null;
  /** The instant its periods count from. */
  billingAnchor: Date;
  /** The start of the first period its discount applied to (the trial's end, else its start). */
  discountAppliedAt: Date;
}

/** A subscription's MRR × 12: `discounted` until `discountEndsAt` (never: null), then `full`. */
export interface RecurringRevenue {
  discounted: number;
  full: number;
  discountEndsAt: Date | null;
}

/**
 * The start of the first period a discount first applied at `appliedAt` no longer applies to
 * (as `discountAppliesToPeriod` reads its term); null for a discount that applies for good.
 */
export function discountEnd(
  term: DiscountTerm,
  {
    appliedAt,
    billingAnchor,
    interval,
  }: { appliedAt: Date; billingAnchor: Date; interval: BillingInterval },
): Date | null {
  if (term.duration === 'forever') return null;
  const lastCoveredStart =
    term.duration === 'repeating' ? addMonths(appliedAt, term.durationInMonths - 1) : appliedAt;
  return nextBillingPeriod(billingAnchor, interval, lastCoveredStart).end;
}

/** A subscription's MRR × 12, with and without its discount, and when the discount stops. */
export function recurringRevenue(charge: RecurringCharge): RecurringRevenue {
  const billed = charge.price ? priceAmountOf(charge.price, charge.choice) : 0;
  const full = monthlyTimesTwelve(billed, charge.interval);
  if (!charge.discount) return { discounted: full, full, discountEndsAt: null };
  const discounted = monthlyTimesTwelve(
    billed - discountAmount(charge.discount, billed),
    charge.interval,
  );
  return {
    discounted,
    full,
    discountEndsAt: discountEnd(charge.discount, {
      appliedAt: charge.discountAppliedAt,
      billingAnchor: charge.billingAnchor,
      interval: charge.interval,
    }),
  };
}
