import { type TrialInterval, trialEnd } from './checkout-amounts.ts';

export type BillingInterval = TrialInterval;

export interface BillingPeriod {
  start: Date;
  end: Date;
}

/** The longest a single interval can be: a lower bound on how many fit in a span. */
const longestInterval: Record<BillingInterval, number> = {
  day: 86_400_000,
  week: 7 * 86_400_000,
  month: 31 * 86_400_000,
  year: 366 * 86_400_000,
};

/**
 * The period that follows the one ending at `periodEnd`. Every period ends a whole number of
 * intervals after the subscription's anchor (never after the previous end), so a month clamped
 * to a short month's end springs back: Jan 31 → Feb 28 (29) → Mar 31.
 */
export function nextBillingPeriod(
  anchor: Date,
  interval: BillingInterval,
  periodEnd: Date,
): BillingPeriod {
  let count = Math.max(
    1,
    Math.floor((periodEnd.getTime() - anchor.getTime()) / longestInterval[interval]),
  );
  let end = trialEnd(anchor, interval, count);
  while (end.getTime() <= periodEnd.getTime()) {
    count += 1;
    end = trialEnd(anchor, interval, count);
  }
  return { start: periodEnd, end };
}
