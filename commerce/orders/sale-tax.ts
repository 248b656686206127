import type { EntityManager } from '@mikro-orm/postgresql';
import type { Address, TaxId } from '../../db/entities/customer.ts';
import {
  Checkout,
  type Customer,
  Organization,
  Product,
  type Subscription,
} from '../../db/entities/index.ts';
import {
  computeTax,
  isReverseCharge,
  type TaxBehavior,
  type TaxBuyer,
  type TaxResult,
  type TaxSettings,
  taxSettingsOf,
} from '../../domain/tax.ts';
import type { StripeClient } from '../../integrations/stripe/client.ts';
import { calculateStripeTax } from '../../integrations/stripe/tax.ts';
import { sellerTaxRates } from '../tax-rates/service.ts';

/**
 * The tax of an order made without a checkout (a subscription's renewal, an invoiced plan
 * change): the organization's tax mode applied to the net amount, for the customer as their
 * billing address and tax id stand when the order is made (docs/tax.md, "Renewals and plan
 * changes").
 */

/** Where a buyer is billed, and under which tax id. */
export interface BillingDetails {
  billingAddress?: Address | null;
  taxId?: TaxId | null;
}

/**
 * Where a subscription's order (a renewal, a plan change) is billed and taxed: the customer's
 * billing details as they stand; for a customer who has no billing address (one the seller named
 * at checkout keeps their own details), those the buyer gave at the subscription's checkout.
 */
export async function subscriptionBillingDetails(
  em: EntityManager,
  subscription: Pick<Subscription, 'checkoutId'> & { customer: Customer },
): Promise<BillingDetails> {
  const { customer } = subscription;
  if (customer.billingAddress?.country) {
    return { billingAddress: customer.billingAddress, taxId: customer.taxId ?? null };
  }
  const checkout = subscription.checkoutId
    ? await em.findOne(Checkout, subscription.checkoutId)
    : null;
  return {
    billingAddress: checkout?.customerBillingAddress ?? null,
    taxId: checkout?.customerTaxId ?? null,
  };
}

/** What is sold, to whom: the order's net amount (price less discount, prorations included). */
export interface Sale {
  organizationId: string;
  /** The product billed: its tax behaviour (`exempt` pays none) applies to the whole amount. */
  productId: string;
  customer: BillingDetails;
  currency: string;
  netAmount: number;
  /** Names the Stripe Tax calculation's line: the order's id, or the plan change's. */
  reference: string;
}

/** The sale's tax, and the Stripe Tax calculation it came from (the paid order records it). */
export interface SaleTax extends TaxResult {
  stripeTaxCalculationId: string | null;
}

const untaxed = (netAmount: number): SaleTax => ({
  lines: [],
  taxAmount: 0,
  amountExcludingTax: netAmount,
  totalAmount: netAmount,
  stripeTaxCalculationId: null,
});

/**
 * The sale's tax: none when the organization taxes nothing, the customer has no billing
 * country, the amount is nothing, or (Stripe Tax) a US or Canadian customer has neither state
 * nor postal code; else the seller's rates (domain/tax.ts) or a Stripe Tax calculation. A
 * calculation records nothing at Stripe, so asking again (a retried activity) is harmless; a
 * Stripe error is thrown, for the caller's retries: an order is never made with a tax Stripe
 * did not give.
 */
export async function saleTax(
  em: EntityManager,
  sale: Sale,
  stripe: StripeClient | undefined,
): Promise<SaleTax> {
  const address = sale.customer.billingAddress;
  if (!address?.country || sale.netAmount <= 0) return untaxed(sale.netAmount);
  const settings = taxSettingsOf(await em.findOneOrFail(Organization, sale.organizationId));
  if (settings.mode === 'none') return untaxed(sale.netAmount);
  const { taxBehavior } = await em.findOneOrFail(Product, sale.productId);
  const buyer: TaxBuyer = {
    country: address.country,
    state: address.state ?? null,
    taxId: sale.customer.taxId ?? null,
  };
  if (settings.mode === 'seller_rates') {
    const tax = computeTax({
      rates: await sellerTaxRates(em, sale.organizationId),
      sellerCountry: settings.homeCountry,
      behavior: taxBehavior,
      buyer,
      amount: sale.netAmount,
    });
    return { ...tax, stripeTaxCalculationId: null };
  }
  if (!stripe) throw new Error('Stripe Tax needs the Stripe client to tax an order');
  const located = { ...buyer, postalCode: address.postalCode ?? null };
  if (!stripeCanPlace(located)) return untaxed(sale.netAmount);
  return stripeSaleTax(stripe, {
    currency: sale.currency,
    amount: sale.netAmount,
    settings,
    behavior: taxBehavior,
    buyer: located,
    reference: sale.reference,
  });
}

/** Stripe needs a US or Canadian buyer's state or postal code besides the country. */
export const stripeCanPlace = (buyer: TaxBuyer & { postalCode: string | null }) =>
  !['US', 'CA'].includes(buyer.country.toUpperCase()) || Boolean(buyer.state || buyer.postalCode);

/**
 * Stripe Tax's calculation of `amount` (more than nothing) sold to the buyer, as a sale's tax:
 * inclusive when the organization's prices include tax, reverse charged for EU B2B across
 * borders. A Stripe error is thrown to the caller.
 */
export async function stripeSaleTax(
  stripe: StripeClient,
  request: {
    currency: string;
    amount: number;
    settings: TaxSettings;
    behavior: TaxBehavior;
    buyer: TaxBuyer & { postalCode: string | null };
    reference: string;
  },
): Promise<SaleTax> {
  const { amount, settings, buyer } = request;
  const calculation = await calculateStripeTax(stripe, {
    currency: request.currency,
    amount,
    inclusive: settings.pricesIncludeTax,
    behavior: request.behavior,
    buyer,
    reverseCharge: isReverseCharge(settings.homeCountry, buyer),
    reference: request.reference,
  });
  const inclusiveTax = calculation.lines
    .filter((line) => line.inclusive)
    .reduce((sum, line) => sum + line.taxAmount, 0);
  return {
    lines: calculation.lines,
    taxAmount: calculation.taxAmount,
    amountExcludingTax: amount - inclusiveTax,
    totalAmount: calculation.totalAmount,
    stripeTaxCalculationId: calculation.calculationId,
  };
}
