/**
 * Rules about changing a subscription's plan in the middle of a period: the unused time of the
 * old amount is credited and the remaining time of the new amount debited. Plain functions over
 * plain values; amounts are integer minor units, time is measured in milliseconds.
 */
import { divideRoundingHalfAway } from './discounts.ts';

export interface ProrationInput {
  /** What the subscription bills per period before the change, and after it. */
  oldAmount: number;
  newAmount: number;
  /** The current period, and the instant of the change (clamped into the period). */
  periodStart: Date;
  periodEnd: Date;
  at: Date;
}

export interface Proration {
  /** The old amount's share of the time left, as a credit: zero or negative. */
  unusedCredit: number;
  /** The new amount's share of the time left: zero or positive. */
  remainingCharge: number;
  /** What the change costs (negative: what it gives back): the sum of both. */
  difference: number;
}

/**
 * The proration of a plan change at `at`: each amount times the share of the period left,
 * rounded half away from zero in exact integer arithmetic (each line on its own, so the
 * difference is the sum of what the order's lines show).
 */
export function prorate({
  oldAmount,
  newAmount,
  periodStart,
  periodEnd,
  at,
}: ProrationInput): Proration {
  const length = BigInt(periodEnd.getTime() - periodStart.getTime());
  if (length <= 0n) return { unusedCredit: 0, remainingCharge: 0, difference: 0 };
  const instant = Math.min(Math.max(at.getTime(), periodStart.getTime()), periodEnd.getTime());
  const left = BigInt(periodEnd.getTime() - instant);
  const shareOf = (amount: number) => Number(divideRoundingHalfAway(BigInt(amount) * left, length));
  // `0 - x` rather than `-x`: an unused credit of nothing is 0, not -0.
  const unusedCredit = 0 - shareOf(oldAmount);
  const remainingCharge = shareOf(newAmount);
  return { unusedCredit, remainingCharge, difference: unusedCredit + remainingCharge };
}
