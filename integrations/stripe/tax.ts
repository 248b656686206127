import type Stripe from 'stripe';
import {
  subdivisionCode,
  type TaxBehavior,
  type TaxBuyer,
  type TaxLine,
} from '../../domain/tax.ts';
import type { StripeClient } from './client.ts';

/**
 * Stripe Tax (issue 22, option 1; docs/tax.md): a calculation for what the buyer is about to
 * pay, its transaction recorded once the payment succeeds, and reversed in part by each refund.
 * Thin calls over the SDK; Stripe's answer is read into Tollgate's tax lines (domain/tax.ts).
 */

/** Stripe's tax code for goods and services that are not taxed (a product marked `exempt`). */
const nontaxableTaxCode = 'txcd_00000000';

export interface StripeTaxRequest {
  currency: string;
  /** The amount to tax: the price less any discount, in minor units. */
  amount: number;
  /** Whether `amount` already holds the tax (the organization's `prices_include_tax`). */
  inclusive: boolean;
  behavior: TaxBehavior;
  buyer: TaxBuyer & { postalCode: string | null };
  /** EU B2B across borders (domain/tax.ts `isReverseCharge`): Stripe charges no VAT. */
  reverseCharge: boolean;
  /** Names the calculation's single line item (the checkout's id). */
  reference: string;
}

export interface StripeTaxCalculation {
  calculationId: string;
  lines: TaxLine[];
  taxAmount: number;
  /** What the buyer pays: the amount plus any exclusive tax. */
  totalAmount: number;
}

/** Asks Stripe Tax for the tax of one purchase; a Stripe error is thrown to the caller. */
export async function calculateStripeTax(
  stripe: StripeClient,
  request: StripeTaxRequest,
): Promise<StripeTaxCalculation> {
  const { buyer } = request;
  const country = buyer.country.toUpperCase();
  // Stripe names a US state or Canadian province by its code alone (`CA`, not `US-CA`).
  const state = subdivisionCode(buyer.state, country);
  const calculation = await stripe.tax.calculations.create({
    currency: request.currency,
    line_items: [
      {
        amount: request.amount,
        reference: request.reference,
        tax_behavior: request.inclusive ? 'inclusive' : 'exclusive',
        ...(request.behavior === 'exempt' ? { tax_code: nontaxableTaxCode } : {}),
      },
    ],
    customer_details: {
      address: {
        country,
        ...(state ? { state } : {}),
        ...(buyer.postalCode ? { postal_code: buyer.postalCode } : {}),
      },
      address_source: 'billing',
      ...(buyer.taxId
        ? {
            tax_ids: [
              {
                type: buyer
                  .taxId[1] as Stripe.Tax.CalculationCreateParams.CustomerDetails.TaxId.Type,
                value: buyer.taxId[0],
              },
            ],
          }
        : {}),
      ...(request.reverseCharge ? { taxability_override: 'reverse_charge' as const } : {}),
    },
  });
  return {
    calculationId: calculation.id as string,
    lines: taxLinesOf(calculation),
    taxAmount: calculation.tax_amount_exclusive + calculation.tax_amount_inclusive,
    totalAmount: calculation.amount_total,
  };
}

/** Stripe's breakdown as Tollgate's tax lines: one per jurisdiction and rate, integers only. */
export function taxLinesOf(calculation: Stripe.Tax.Calculation): TaxLine[] {
  return calculation.tax_breakdown.map((breakdown) => {
    const details = breakdown.tax_rate_details;
    const country = (details.country ?? '').toUpperCase();
    const jurisdiction = details.state ? `${country}-${details.state.toUpperCase()}` : country;
    const reverseCharge = breakdown.taxability_reason === 'reverse_charge';
    return {
      jurisdiction,
      displayName: reverseCharge
        ? 'Reverse charge'
        : `${(details.tax_type ?? 'tax').replaceAll('_', ' ').toUpperCase()} ${jurisdiction}`,
      rateBps: basisPointsOf(details.percentage_decimal),
      taxableAmount: breakdown.taxable_amount,
      taxAmount: breakdown.amount,
      inclusive: breakdown.inclusive,
      reverseCharge,
    };
  });
}

/** `"19.0"` → 1900, `"7.25"` → 725: Stripe's decimal percentage read as text, never a float. */
export function basisPointsOf(percentage: string): number {
  const [whole = '0', fraction = ''] = percentage.trim().split('.');
  const hundredths = `${fraction}00`.slice(0, 2);
  return Number.parseInt(whole, 10) * 100 + Number.parseInt(hundredths, 10);
}

/**
 * Records the calculation as a tax transaction once the order is paid (Stripe files it in its
 * tax reports); the order's id is both its reference and the idempotency key, so a retried
 * activity gets the first transaction back.
 */
export async function recordStripeTaxTransaction(
  stripe: StripeClient,
  { calculationId, orderId }: { calculationId: string; orderId: string },
): Promise<string> {
  const transaction = await stripe.tax.transactions.createFromCalculation(
    { calculation: calculationId, reference: orderId, metadata: { order_id: orderId } },
    { idempotencyKey: `tax-transaction:${orderId}` },
  );
  return transaction.id;
}

/**
 * Reverses the part of an order's tax transaction a refund gives back: `amount` is what the
 * refund returns, tax included (Stripe's flat amounts of a reversal are negative).
 */
export async function reverseStripeTaxTransaction(
  stripe: StripeClient,
  { transactionId, refundId, amount }: { transactionId: string; refundId: string; amount: number },
): Promise<string> {
  const reversal = await stripe.tax.transactions.createReversal(
    {
      mode: 'partial',
      original_transaction: transactionId,
      reference: refundId,
      flat_amount: -amount,
      metadata: { refund_id: refundId },
    },
    { idempotencyKey: `tax-reversal:${refundId}` },
  );
  return reversal.id;
}
