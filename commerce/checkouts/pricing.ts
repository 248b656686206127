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
import { invalidFields } from '../errors.ts';
import { stripeCanPlace, stripeSaleTax } from '../orders/sale-tax.ts';
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
 * `stripe` asks Stripe Tax, for an organization that taxes with it.
 */
export async function applyChanges(
  em: EntityManager,
  checkout: Checkout,
  changes: CheckoutChanges,
  offer: Map<string, ProductWire>,
  {
    chosenAmount,
    confirming = false,
    stripe,
  }: { chosenAmount: number | null; confirming?: boolean; stripe?: StripeClient },
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
  await setAmounts(em, checkout, price, amount, stripe);
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
  stripe: StripeClient | undefined,
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
    await taxOf(em, checkout, netAmount, stripe),
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
  stripe: StripeClient | undefined,
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
    if (!stripe) throw new Error('Stripe Tax needs the Stripe client to price a checkout');
    const postalCode = address.postalCode ?? null;
    const result = await stripeTaxOf(stripe, checkout, settings, product, netAmount, {
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
 * records a transaction from it); null until Stripe can place the buyer. A calculation records
 * nothing at Stripe, so asking under the checkout's lock is safe. When Stripe cannot answer, the
 * change is refused (422 at the billing address) and rolled back: the checkout never holds a tax
 * it did not get from Stripe, and cannot be confirmed without one.
 */
async function stripeTaxOf(
  stripe: StripeClient,
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
    const tax = await stripeSaleTax(stripe, {
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
