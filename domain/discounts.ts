/**
 * Rules about discounts: whether one may be redeemed at a moment for a product, how much it takes
 * off an amount, and for which billing periods it keeps applying. Plain functions over plain
 * values; amounts are integer minor units.
 */

export const discountTypes = ['fixed', 'percentage'] as const;
export type DiscountType = (typeof discountTypes)[number];
export const discountDurations = ['once', 'forever', 'repeating'] as const;
export type DiscountDuration = (typeof discountDurations)[number];

/** Polar's limits on discount terms. */
export const discountLimits = {
  /** 100 basis points are 1 %; a discount takes at most the whole amount. */
  maxBasisPoints: 10_000,
  codeLength: { min: 3, max: 256 },
  maxDurationInMonths: 999,
  /** The integer column's range: Polar's own bound (999 999 999 999) does not fit it. */
  maxAmount: 2_147_483_647,
} as const;

/** What a discount takes off: a fixed amount, or a share in basis points. */
export type DiscountReduction =
  | { type: 'fixed'; amount: number }
  | { type: 'percentage'; basisPoints: number };

/** When and how often a discount may be redeemed, and for which products (none: all). */
export interface DiscountAvailability {
  startsAt: Date | null;
  endsAt: Date | null;
  maxRedemptions: number | null;
  redemptionsCount: number;
  productIds: readonly string[];
}

/** Why a discount cannot be redeemed, or null when it can. */
export type DiscountRefusal = 'not_started' | 'ended' | 'exhausted' | 'product_not_applicable';

/**
 * Why `discount` cannot be redeemed at `at` for `productId`, or null when it can. As in Polar,
 * it is redeemable from `startsAt` on and until `endsAt` included, while redemptions are left.
 */
export function discountRefusal(
  discount: DiscountAvailability,
  { at, productId }: { at: Date; productId: string },
): DiscountRefusal | null {
  if (discount.startsAt && discount.startsAt.getTime() > at.getTime()) return 'not_started';
  if (discount.endsAt && discount.endsAt.getTime() < at.getTime()) return 'ended';
  if (discount.maxRedemptions !== null && discount.redemptionsCount >= discount.maxRedemptions) {
    return 'exhausted';
  }
  if (discount.productIds.length > 0 && !discount.productIds.includes(productId)) {
    return 'product_not_applicable';
  }
  return null;
}

export const isDiscountRedeemable = (
  discount: DiscountAvailability,
  moment: { at: Date; productId: string },
) => discountRefusal(discount, moment) === null;

/** `numerator / denominator` rounded half away from zero, exactly (a positive denominator). */
export function divideRoundingHalfAway(numerator: bigint, denominator: bigint): bigint {
  const quotient = numerator / denominator;
  const remainder = numerator % denominator;
  const magnitude = remainder < 0n ? -remainder : remainder;
  if (2n * magnitude < denominator) return quotient;
  return numerator < 0n ? quotient - 1n : quotient + 1n;
}

/**
 * What `discount` takes off `amount` (minor units): a percentage is rounded half away from zero
 * in exact integer arithmetic; a fixed amount never exceeds the amount it applies to.
 */
export function discountAmount(discount: DiscountReduction, amount: number): number {
  if (discount.type === 'fixed') return Math.min(discount.amount, amount);
  const share = BigInt(amount) * BigInt(discount.basisPoints);
  return Number(divideRoundingHalfAway(share, BigInt(discountLimits.maxBasisPoints)));
}

/** How long a discount keeps applying to a subscription. */
export type DiscountTerm =
  | { duration: 'once' | 'forever' }
  | { duration: 'repeating'; durationInMonths: number };

/** `date` plus `months` calendar months in UTC, the day clamped to the target month's end. */
export function addMonths(date: Date, months: number): Date {
  const target = new Date(date.getTime());
  const day = date.getUTCDate();
  target.setUTCDate(1);
  target.setUTCMonth(target.getUTCMonth() + months);
  const lastDay = new Date(
    Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0),
  ).getUTCDate();
  target.setUTCDate(Math.min(day, lastDay));
  return target;
}

/**
 * Whether a discount first applied to the period starting `appliedAt` still applies to the period
 * starting `periodStart`. `once` covers that first period only, `forever` every period, and
 * `repeating` counts down its months from the first one: N months cover periods starting up to
 * N - 1 months after it (so 12 months cover one yearly period, 24 two).
 */
export function discountAppliesToPeriod(
  term: DiscountTerm,
  { appliedAt, periodStart }: { appliedAt: Date; periodStart: Date },
): boolean {
  switch (term.duration) {
    case 'once':
      return periodStart.getTime() <= appliedAt.getTime();
    case 'forever':
      return true;
    case 'repeating':
      return periodStart.getTime() <= addMonths(appliedAt, term.durationInMonths - 1).getTime();
  }
}
