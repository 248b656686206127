import type { EntityManager } from '@mikro-orm/postgresql';
import Stripe from 'stripe';
import type { ValidationIssue } from '../../core/errors.ts';
import {
  type Checkout,
  Discount,
  Organization,
  Product,
  ProductPrice,
} from '../../db/entities/index.ts';
import { checkoutAmounts, priceAmountOf } from '../../domain/checkout-amounts.ts';
import { checkoutPrice, customAmountProblem } from '../../domain/prices.ts';
import {
  computeTax,
  type TaxBuyer,
  type TaxResult,
  type TaxSettings,
  taxSettingsOf,
} from '../../domain/tax.ts';
import type { StripeClient } from '../../integrations/stripe/client.ts';
import { commerceError, invalidFields } from '../errors.ts';
import { type SaleTax, stripeCanPlace, stripeSaleTax } from '../orders/sale-tax.ts';
import type { ProductWire } from '../products/service.ts';
import { sellerTaxRates } from '../tax-rates/service.ts';
import {
  applyBuyerFields,
  applyCustomFieldValues,
  applySellerSettings,
  type CheckoutChanges,
  issue,
} from './changes.ts';
import { applyDiscountChanges } from './discounts.ts';

/** The price a checkout selects for a product: its static price, else its first metered one. */
export function defaultPrice(product: ProductWire) {
  return checkoutPrice(
    product.prices.map((price) => ({
      id: price.id,
      amountType: price.amount_type,
      isArchived: price.is_archived,
      createdAt: new Date(price.created_at),
    })),
  );
}

/** The amount a buyer chose for a pay-what-you-want price, to keep across other changes. */
export async function chosenAmountOf(
  em: EntityManager,
  checkout: Checkout,
): Promise<number | null> {
  const price = await em.findOneOrFail(ProductPrice, checkout.productPrice.id);
  return price.amountType === 'custom' ? checkout.amount : null;
}

/**
 * Applies `changes` to the checkout (new or open), refusing every bad value together with a 422
 * located at its field; then recomputes the price, discount and amounts. `offer` holds the
 * products the checkout offers, serialized; `chosenAmount` the pay-what-you-want amount kept
 * while the price stays; `confirming` refuses a discount that can no longer be redeemed;
 * `stripeTax` answers Stripe Tax, for an organization that taxes with it.
 */
export async function applyChanges(
  em: EntityManager,
  checkout: Checkout,
  changes: CheckoutChanges,
  offer: Map<string, ProductWire>,
  {
    chosenAmount,
    confirming = false,
    stripeTax,
  }: { chosenAmount: number | null; confirming?: boolean; stripeTax?: StripeTaxSource },
): Promise<void> {
  const priceBefore = checkout.productPrice.id;
  const issues = await applyProductChoice(em, checkout, changes, offer);
  const product = offer.get(checkout.product.id);
  if (!product) throw new Error(`Checkout ${checkout.id} selects a product it does not offer`);
  const price = await em.findOneOrFail(ProductPrice, checkout.productPrice.id);
  // Another price forgets the amount chosen for the previous one.
  const kept = checkout.productPrice.id === priceBefore ? chosenAmount : null;
  const custom = customAmountOf(price, changes.amount);
  if (typeof custom === 'string') issues.push(issue(['body', 'amount'], custom));
  const amount = typeof custom === 'number' ? custom : kept;
  if (changes.seats !== undefined) checkout.seats = changes.seats;
  issues.push(
    ...applyBuyerFields(checkout, changes),
    ...applySellerSettings(checkout, changes, product),
    ...applyCustomFieldValues(checkout, changes, product),
    ...(await applyDiscountChanges(em, checkout, changes, product.id, confirming)),
  );
  if (issues.length) throw invalidFields(issues);
  await setAmounts(em, checkout, price, amount, stripeTax);
}

/** The product and price: a price of another offered product selects that product. */
async function applyProductChoice(
  em: EntityManager,
  checkout: Checkout,
  changes: CheckoutChanges,
  offer: Map<string, ProductWire>,
): Promise<ValidationIssue[]> {
  if (changes.product_price_id) {
    const price = await em.findOne(ProductPrice, {
      id: changes.product_price_id,
      isArchived: false,
      product: { $in: checkout.productIds },
    });
    if (!price) {
      return [issue(['body', 'product_price_id'], 'Price is not available in this checkout.')];
    }
    if (price.id !== checkout.productPrice.id) {
      checkout.product = price.product;
      checkout.productPrice = price;
    }
  } else if (changes.product_id && changes.product_id !== checkout.product.id) {
    const product = offer.get(changes.product_id);
    const selected = product ? defaultPrice(product) : null;
    if (!product || product.is_archived || !selected || !checkout.productIds.includes(product.id)) {
      return [issue(['body', 'product_id'], 'Product is not available in this checkout.')];
    }
    checkout.product = em.getReference(Product, product.id);
    checkout.productPrice = em.getReference(ProductPrice, selected.id);
  }
  return [];
}

/**
 * The amount the buyer asks to pay for a pay-what-you-want price: the amount, or why it is
 * refused; undefined when none is asked (or the price is not pay-what-you-want).
 */
function customAmountOf(price: ProductPrice, asked: number | null | undefined) {
  if (asked == null || price.amountType !== 'custom') return undefined;
  const problem = customAmountProblem(
    { minimumAmount: price.minimumAmount ?? null, maximumAmount: price.maximumAmount ?? null },
    asked,
  );
  return problem ?? asked;
}

/** The checkout's amounts for its price (at `amount` when pay-what-you-want) and discount. */
async function setAmounts(
  em: EntityManager,
  checkout: Checkout,
  price: ProductPrice,
  amount: number | null,
  stripeTax: StripeTaxSource | undefined,
) {
  const discount = checkout.discount
    ? await em.findOneOrFail(Discount, checkout.discount.id)
    : null;
  const priceAmount = priceAmountOf(price, { amount, seats: checkout.seats });
  const reduction =
    discount &&
    (discount.type === 'fixed'
      ? ({ type: 'fixed', amount: discount.amount ?? 0 } as const)
      : ({ type: 'percentage', basisPoints: discount.basisPoints ?? 0 } as const));
  checkout.currency = price.priceCurrency ?? 'usd';
  const { netAmount } = checkoutAmounts(priceAmount, reduction);
  const amounts = checkoutAmounts(
    priceAmount,
    reduction,
    await taxOf(em, checkout, netAmount, stripeTax),
  );
  checkout.amount = amounts.amount;
  checkout.discountAmount = amounts.discountAmount;
  checkout.netAmount = amounts.netAmount;
  checkout.taxAmount = amounts.taxAmount;
  checkout.taxLines = amounts.taxLines;
  checkout.totalAmount = amounts.totalAmount;
}

/**
 * How the checkout's net amount is taxed, once it can be: the buyer's billing country is known
 * and the organization taxes with its own rates or with Stripe Tax (docs/tax.md); else null
 * (tax_amount null). Sets the checkout's Stripe Tax calculation, or clears it.
 */
async function taxOf(
  em: EntityManager,
  checkout: Checkout,
  netAmount: number,
  stripeTax: StripeTaxSource | undefined,
): Promise<((netAmount: number) => TaxResult) | null> {
  checkout.stripeTaxCalculationId = null;
  const address = checkout.customerBillingAddress;
  if (!address?.country) return null;
  const organization = await em.findOneOrFail(Organization, checkout.organization.id);
  const settings = taxSettingsOf(organization);
  if (settings.mode === 'none') return null;
  const product = await em.findOneOrFail(Product, checkout.product.id);
  const buyer = {
    country: address.country,
    state: address.state ?? null,
    taxId: checkout.customerTaxId ?? null,
  };
  if (settings.mode === 'stripe_tax') {
    if (!stripeTax) throw new Error('Stripe Tax needs the Stripe client to price a checkout');
    const postalCode = address.postalCode ?? null;
    const result = await stripeTaxOf(stripeTax, checkout, settings, product, netAmount, {
      ...buyer,
      postalCode,
    });
    return result && (() => result);
  }
  const rates = await sellerTaxRates(em, organization.id);
  return (amount) =>
    computeTax({
      rates,
      sellerCountry: settings.homeCountry,
      behavior: product.taxBehavior,
      buyer,
      amount,
    });
}

/**
 * Stripe Tax's answer for the net amount, its calculation kept on the checkout (the paid order
 * records a transaction from it); null until Stripe can place the buyer. When Stripe cannot
 * answer, the change is refused (422 at the billing address) and rolled back: the checkout never
 * holds a tax it did not get from Stripe, and cannot be confirmed without one.
 */
async function stripeTaxOf(
  stripeTax: StripeTaxSource,
  checkout: Checkout,
  settings: TaxSettings,
  product: Product,
  netAmount: number,
  buyer: TaxBuyer & { postalCode: string | null },
): Promise<TaxResult | null> {
  if (!stripeCanPlace(buyer)) return null;
  if (netAmount <= 0) {
    return { lines: [], taxAmount: 0, amountExcludingTax: netAmount, totalAmount: netAmount };
  }
  try {
    const tax = await stripeTax({
      currency: checkout.currency,
      amount: netAmount,
      settings,
      behavior: product.taxBehavior,
      buyer,
      reference: checkout.id,
    });
    checkout.stripeTaxCalculationId = tax.stripeTaxCalculationId;
    return tax;
  } catch (error) {
    if (!(error instanceof Stripe.errors.StripeError)) throw error;
    throw invalidFields([
      issue(
        ['body', 'customer_billing_address'],
        `The tax for this address could not be calculated (Stripe Tax: ${error.message}); try again.`,
      ),
    ]);
  }
}

type SaleTaxRequest = Parameters<typeof stripeSaleTax>[1];

/** Where a checkout change gets Stripe Tax's answer: Stripe itself, or answers asked before. */
export type StripeTaxSource = (request: SaleTaxRequest) => Promise<SaleTax>;

/** Asks Stripe directly: for a checkout no transaction holds yet (createCheckout). */
export const stripeTaxFrom =
  (stripe: StripeClient): StripeTaxSource =>
  (request) =>
    stripeSaleTax(stripe, request);

/** A change under the checkout's lock needs an answer from Stripe it was not given. */
class StripeTaxQuestion extends Error {
  readonly request: SaleTaxRequest;
  constructor(request: SaleTaxRequest) {
    super('The checkout change needs Stripe Tax asked outside its transaction');
    this.request = request;
  }
}

const changeRuns = 4;

/**
 * Runs `change`, a transaction that locks a checkout, with Stripe Tax asked outside it, so that
 * no lock waits on Stripe. A run that needs an answer it has not been given stops with the
 * question, which rolls its transaction back; Stripe is asked (its refusal kept as the answer)
 * and the change runs again in a new transaction. The checkout changing under every run (each
 * asking something new) ends in a 409.
 */
export async function withStripeTaxOutsideLock<T>(
  stripe: StripeClient | undefined,
  change: (stripeTax: StripeTaxSource | undefined) => Promise<T>,
): Promise<T> {
  if (!stripe) return change(undefined);
  const answers = new Map<string, SaleTax | Stripe.errors.StripeError>();
  const answered: StripeTaxSource = async (request) => {
    const answer = answers.get(JSON.stringify(request));
    if (answer === undefined) throw new StripeTaxQuestion(request);
    if (answer instanceof Error) throw answer;
    return answer;
  };
  for (let run = 1; ; run++) {
    try {
      return await change(answered);
    } catch (error) {
      if (!(error instanceof StripeTaxQuestion)) throw error;
      if (run === changeRuns) throw commerceError('CheckoutChangedWhileTaxed');
      const answer = await stripeSaleTax(stripe, error.request).catch((refusal: unknown) => {
        if (refusal instanceof Stripe.errors.StripeError) return refusal;
        throw refusal;
      });
      answers.set(JSON.stringify(error.request), answer);
    }
  }
}
