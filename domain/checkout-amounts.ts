/**
 * Rules about what a checkout charges and asks for: the amount of the selected price, what a
 * discount takes off it, the flags telling the page whether to ask for payment, and which
 * billing address fields it requires. Plain functions over plain values; amounts are integer
 * minor units.
 */
import { addMonths, type DiscountReduction, discountAmount } from './discounts.ts';
import type { TaxLine, TaxResult } from './tax.ts';

/** What a checkout reads of its selected price. */
export interface CheckoutPriceFields {
  amountType: 'fixed' | 'custom' | 'free' | 'metered_unit' | 'seat_based';
  priceAmount?: number | null;
  minimumAmount?: number | null;
  maximumAmount?: number | null;
  presetAmount?: number | null;
  pricePerSeat?: number | null;
}

/** A pay-what-you-want price with neither preset nor minimum starts at $10, as in Polar. */
export const customAmountFallback = 1000;

/**
 * The amount the selected price charges before any discount: a fixed price its amount, a
 * pay-what-you-want price the amount chosen (else its preset, its minimum, or $10), a seat-based
 * price its seats, free and metered prices nothing up front.
 */
export function priceAmountOf(
  price: CheckoutPriceFields,
  choice: { amount?: number | null; seats?: number | null } = {},
): number {
  switch (price.amountType) {
    case 'fixed':
      return price.priceAmount ?? 0;
    case 'custom':
      return (
        choice.amount ??
        price.presetAmount ??
        price.minimumAmount ??
        Math.min(customAmountFallback, price.maximumAmount ?? customAmountFallback)
      );
    case 'seat_based':
      return (price.pricePerSeat ?? 0) * (choice.seats ?? 1);
    case 'free':
    case 'metered_unit':
      return 0;
  }
}

export interface CheckoutAmounts {
  amount: number;
  discountAmount: number;
  netAmount: number;
  /** Null until tax can be computed (seller rates and the buyer's billing country known). */
  taxAmount: number | null;
  taxLines: TaxLine[];
  totalAmount: number;
}

/**
 * The amounts of a checkout: the price's amount, less the discount (the net), then its tax once
 * `tax` can compute it (domain/tax.ts). Exclusive tax is added to the total; inclusive tax is
 * carved out of the net, which stays the total.
 */
export function checkoutAmounts(
  amount: number,
  discount: DiscountReduction | null,
  tax: ((netAmount: number) => TaxResult) | null = null,
): CheckoutAmounts {
  const off = discount ? discountAmount(discount, amount) : 0;
  const netAmount = amount - off;
  const taxed = tax?.(netAmount);
  return {
    amount,
    discountAmount: off,
    netAmount,
    taxAmount: taxed ? taxed.taxAmount : null,
    taxLines: taxed ? taxed.lines : [],
    totalAmount: taxed ? taxed.totalAmount : netAmount,
  };
}

export interface CheckoutFlags {
  isFreeProductPrice: boolean;
  isPaymentRequired: boolean;
  isPaymentSetupRequired: boolean;
  isPaymentFormRequired: boolean;
  isDiscountApplicable: boolean;
}

/**
 * Whether the page must take a payment now (something left to pay and no trial), set up a
 * payment method for later (a recurring product that is not free), and so show the payment form;
 * whether the product is free, and whether a discount could take anything off it.
 */
export function checkoutFlags(input: {
  /** The amount types of the product's live prices. */
  priceTypes: readonly CheckoutPriceFields['amountType'][];
  recurring: boolean;
  /** What is left to pay now: the total less what the customer's balance covers. */
  amountDue: number;
  trial: boolean;
}): CheckoutFlags {
  const isFreeProductPrice = input.priceTypes.every((type) => type === 'free');
  const isPaymentRequired = input.amountDue > 0 && !input.trial;
  const isPaymentSetupRequired = input.recurring && !isFreeProductPrice;
  return {
    isFreeProductPrice,
    isPaymentRequired,
    isPaymentSetupRequired,
    isPaymentFormRequired: isPaymentRequired || isPaymentSetupRequired,
    isDiscountApplicable: input.priceTypes.some((type) => type !== 'free'),
  };
}

export const billingAddressFieldNames = [
  'country',
  'state',
  'city',
  'postal_code',
  'line1',
  'line2',
] as const;
export type BillingAddressFieldName = (typeof billingAddressFieldNames)[number];
export type BillingAddressFieldMode = 'required' | 'optional' | 'disabled';
export type BillingAddressFields = Record<BillingAddressFieldName, BillingAddressFieldMode>;

/**
 * Which parts of the billing address the checkout asks for: the country always; the full
 * address for the US, when the seller requires it or the buyer is a business; the state for
 * Canada; nothing more elsewhere.
 */
export function billingAddressFields(input: {
  country: string | null;
  requireBillingAddress: boolean;
  isBusinessCustomer: boolean;
}): BillingAddressFields {
  const full = input.requireBillingAddress || input.isBusinessCustomer || input.country === 'US';
  const whenFull = (mode: BillingAddressFieldMode) => (full ? mode : 'disabled');
  return {
    country: 'required',
    state: full || input.country === 'CA' ? 'required' : 'disabled',
    city: whenFull('required'),
    postal_code: whenFull('required'),
    line1: whenFull('required'),
    line2: whenFull('optional'),
  };
}

/** An address as the checkout keeps it (wire names aside: `postalCode`). */
export interface CheckoutAddress {
  line1: string | null;
  line2: string | null;
  postalCode: string | null;
  city: string | null;
  state: string | null;
  country: string;
}

const addressPart: Record<BillingAddressFieldName, keyof CheckoutAddress> = {
  country: 'country',
  state: 'state',
  city: 'city',
  postal_code: 'postalCode',
  line1: 'line1',
  line2: 'line2',
};

/** The required fields of `fields` the address leaves empty, in the fields' order. */
export function missingAddressFields(
  fields: BillingAddressFields,
  address: CheckoutAddress,
): BillingAddressFieldName[] {
  return billingAddressFieldNames.filter(
    (name) => fields[name] === 'required' && !address[addressPart[name]],
  );
}

export type TrialInterval = 'day' | 'week' | 'month' | 'year';

/** When a trial of `count` intervals starting at `start` ends (months clamp to the month's end). */
export function trialEnd(start: Date, interval: TrialInterval, count: number): Date {
  const day = 86_400_000;
  switch (interval) {
    case 'day':
      return new Date(start.getTime() + count * day);
    case 'week':
      return new Date(start.getTime() + count * 7 * day);
    case 'month':
      return addMonths(start, count);
    case 'year':
      return addMonths(start, count * 12);
  }
}
