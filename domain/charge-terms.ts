/**
 * What a checkout tells the buyer they will be charged, in words: the price per period, how
 * long a discount lasts and a free trial before it ("free for 7 days, then $23.20 / month for
 * 3 months, then $29.00"), what the subscribe button promises, and the first renewal's date.
 * Plain functions over plain values (the hosted checkout page renders them); amounts are
 * integer minor units.
 */
import { type TrialInterval, trialEnd } from './checkout-amounts.ts';
import type { DiscountTerm } from './discounts.ts';
import { formatMoney } from './money.ts';

export type ChargeInterval = TrialInterval;

/** `3, 'month'` → `3 months`, `1, 'day'` → `1 day`. */
export const intervalCount = (count: number, interval: ChargeInterval) =>
  `${count} ${interval}${count === 1 ? '' : 's'}`;

const adverbs: Record<ChargeInterval, string> = {
  day: 'daily',
  week: 'weekly',
  month: 'monthly',
  year: 'yearly',
};

/**
 * How long a repeating discount of `months` months lasts, counted in what the buyer pays: a
 * yearly plan's periods starting within those months (12 months: 1 year, 13: 2 years), else
 * the months themselves.
 */
function repeatingSpan(months: number, interval: ChargeInterval): string {
  if (interval === 'year') return intervalCount(Math.floor((months - 1) / 12) + 1, 'year');
  return intervalCount(months, 'month');
}

export interface ChargeTermsInput {
  /** The price's amount per period, before any discount. */
  amount: number;
  /** What the first paid period costs after the discount (the checkout's net amount). */
  discountedAmount: number;
  currency: string;
  /** The billing interval; null: a one-time purchase. */
  interval: ChargeInterval | null;
  /** How long the discount lasts; null: no discount. */
  discount: DiscountTerm | null;
  trial: { interval: ChargeInterval; count: number } | null;
}

/**
 * The charges of a recurring purchase in one line: `$29.00 / month`; with a discount
 * `$23.20 / month` (forever), `$23.20 for the first month, then $29.00 / month` (once),
 * `$23.20 / month for 3 months, then $29.00` (repeating); a trial first: `free for 7 days,
 * then …`. Null for a one-time purchase, whose total says it all.
 */
export function chargeTerms(input: ChargeTermsInput): string | null {
  const { interval, currency } = input;
  if (!interval) return null;
  const full = formatMoney(input.amount, currency);
  const discounted = formatMoney(input.discountedAmount, currency);
  const perPeriod = (text: string) => `${text} / ${interval}`;
  const { discount } = input;
  let paid: string;
  if (!discount || input.discountedAmount === input.amount) {
    paid = perPeriod(full);
  } else if (discount.duration === 'repeating') {
    const span = repeatingSpan(discount.durationInMonths, interval);
    paid = `${perPeriod(discounted)} for ${span}, then ${full}`;
  } else if (discount.duration === 'once') {
    paid = `${discounted} for the first ${interval}, then ${perPeriod(full)}`;
  } else {
    paid = perPeriod(discounted);
  }
  const { trial } = input;
  return trial ? `free for ${intervalCount(trial.count, trial.interval)}, then ${paid}` : paid;
}

/** What the subscribe button adds to its action: `renews monthly until canceled`. */
export const renewalPromise = (interval: ChargeInterval) =>
  `renews ${adverbs[interval]} until canceled`;

/**
 * When a subscription started at `start` is first billed again: at the trial's end, else one
 * interval later.
 */
export function firstRenewalAt(
  start: Date,
  interval: ChargeInterval,
  trialEndsAt: Date | null,
): Date {
  return trialEndsAt ?? trialEnd(start, interval, 1);
}
