/**
 * Rules about product prices: the amounts Polar accepts, which prices a product may carry
 * together, and which price a checkout charges. Plain functions over plain values.
 */

/** Amount limits in minor units (cents), as Polar enforces them. */
export const priceAmountLimits = {
  /** Stripe's smallest USD charge. */
  minimum: 50,
  /** Stripe's largest charge. */
  maximum: 99_999_999,
  /** Pay-what-you-want prices: largest maximum and preset amount ($10K). */
  customMaximum: 1_000_000,
  /** Metered cap: the integer column's range. */
  capMaximum: 2_147_483_647,
} as const;

/** A metered unit amount: a positive decimal with at most 12 decimals and 17 digits in all. */
export const unitAmountLimits = { decimals: 12, digits: 17 } as const;

/** How often a recurring product bills (Polar's `SubscriptionRecurringInterval`). */
export const recurringIntervals = ['day', 'week', 'month', 'year'] as const;
export type RecurringInterval = (typeof recurringIntervals)[number];

/** Currencies sellers may price in (Polar: only usd in this line). */
export const priceCurrencies = ['usd'] as const;

/** Static prices charge once per purchase or period; a product carries at most one. */
const staticAmountTypes: readonly string[] = ['fixed', 'custom', 'free', 'seat_based'];

export const isStaticPrice = (amountType: string) => staticAmountTypes.includes(amountType);
export const isMeteredPrice = (amountType: string) => amountType === 'metered_unit';

/**
 * The fewest seats a seat-based price sells: Polar's 0.35.x prices carry no seat limits, so
 * one, and no most.
 */
export const minimumSeats = 1;

/** What an invoice line calls a plan: its product's name, with the seats a seat-based price bills. */
export const planLabel = (productName: string, seats: number | null) =>
  seats === null ? productName : `${productName} (${seats} ${seats === 1 ? 'seat' : 'seats'})`;

/**
 * A decimal string without trailing zero noise: the numeric column answers `0.500000000000`,
 * Polar answers `0.5` (and `12` for `12.000000000000`).
 */
export function canonicalDecimal(value: string): string {
  if (!value.includes('.')) return value;
  return value.replace(/0+$/, '').replace(/\.$/, '');
}

const decimalPattern = /^(\d+)(?:\.(\d+))?$/;

/**
 * A metered unit amount as sent (a JSON number or a decimal string) as its canonical decimal
 * string, or null when it is not a positive decimal within the limits.
 */
export function unitAmountText(value: number | string): string | null {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return null;
    // A number with more decimals than allowed changes when rounded to the allowed ones.
    text = value.toFixed(unitAmountLimits.decimals);
    if (Number(text) !== value) return null;
  } else {
    text = value.trim();
  }
  const parts = decimalPattern.exec(text);
  if (!parts) return null;
  const integerDigits = (parts[1] ?? '').replace(/^0+/, '');
  const decimals = (parts[2] ?? '').replace(/0+$/, '');
  if (decimals.length > unitAmountLimits.decimals) return null;
  if (integerDigits.length + decimals.length > unitAmountLimits.digits) return null;
  if (integerDigits === '' && decimals === '') return null;
  return decimals ? `${integerDigits || '0'}.${decimals}` : integerDigits;
}

export interface CustomAmounts {
  minimumAmount: number | null;
  maximumAmount: number | null;
  presetAmount: number | null;
}

export interface AmountProblem {
  field: 'minimum_amount' | 'maximum_amount' | 'preset_amount';
  message: string;
}

/** A pay-what-you-want price must keep minimum ≤ preset ≤ maximum (each bound optional). */
export function customAmountsProblem({
  minimumAmount,
  maximumAmount,
  presetAmount,
}: CustomAmounts): AmountProblem | null {
  if (minimumAmount !== null && maximumAmount !== null && minimumAmount > maximumAmount) {
    return {
      field: 'minimum_amount',
      message: 'The minimum amount must be less than or equal to the maximum amount.',
    };
  }
  if (presetAmount !== null && minimumAmount !== null && presetAmount < minimumAmount) {
    return {
      field: 'preset_amount',
      message: 'The preset amount must be greater than or equal to the minimum amount.',
    };
  }
  if (presetAmount !== null && maximumAmount !== null && presetAmount > maximumAmount) {
    return {
      field: 'preset_amount',
      message: 'The preset amount must be less than or equal to the maximum amount.',
    };
  }
  return null;
}

/** One entry of a product's price list: a new price, or an existing one kept as it is. */
export interface PriceListEntry {
  amountType: string;
  /** The meter of a new metered price. */
  meterId?: string | null;
  isNew: boolean;
}

export interface PriceListViolation {
  /** The entry at fault, or null when the list as a whole breaks a rule. */
  index: number | null;
  field?: 'meter_id';
  message: string;
}

/**
 * What is wrong with a product's price list: none at all, more than one static price, metered
 * prices on a one-time product, or one meter backing two new prices.
 */
export function priceListViolations(
  entries: PriceListEntry[],
  { recurring }: { recurring: boolean },
): PriceListViolation[] {
  const violations: PriceListViolation[] = [];
  const newMeters = new Set<string>();
  entries.forEach((entry, index) => {
    if (!entry.isNew || !isMeteredPrice(entry.amountType)) return;
    if (!recurring) {
      violations.push({
        index,
        message: 'Metered pricing is not supported on one-time products.',
      });
    } else if (entry.meterId && newMeters.has(entry.meterId)) {
      violations.push({
        index,
        field: 'meter_id',
        message: 'Meter is already used for another price.',
      });
    } else if (entry.meterId) {
      newMeters.add(entry.meterId);
    }
  });
  if (entries.length === 0) {
    violations.push({ index: null, message: 'At least one price is required.' });
  }
  if (entries.filter((entry) => isStaticPrice(entry.amountType)).length > 1) {
    violations.push({ index: null, message: 'Only one static price is allowed.' });
  }
  return violations;
}

/** A price as checkouts choose among them. */
export interface SelectablePrice {
  id: string;
  amountType: string;
  isArchived: boolean;
  createdAt: Date;
}

/**
 * The price a checkout of a product charges: the requested one if it is a live price of the
 * product (null otherwise), else the product's static price, else its first metered price.
 */
export function checkoutPrice<Price extends SelectablePrice>(
  prices: Price[],
  requestedId?: string | null,
): Price | null {
  const live = prices
    .filter((price) => !price.isArchived)
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  if (requestedId) return live.find((price) => price.id === requestedId) ?? null;
  return live.find((price) => isStaticPrice(price.amountType)) ?? live[0] ?? null;
}

/**
 * Why an amount a customer chose for a pay-what-you-want price is refused, or null when it is
 * accepted: it must lie between the price's minimum (or the smallest charge) and its maximum.
 */
export function customAmountProblem(
  price: Pick<CustomAmounts, 'minimumAmount' | 'maximumAmount'>,
  amount: number,
): string | null {
  if (!Number.isInteger(amount)) return 'Amount must be a whole number of cents.';
  if (amount < (price.minimumAmount ?? priceAmountLimits.minimum)) {
    return 'Amount is below minimum.';
  }
  if (amount > (price.maximumAmount ?? priceAmountLimits.maximum)) {
    return 'Amount is above maximum.';
  }
  return null;
}
