import type { EntityManager } from '@mikro-orm/postgresql';
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
import { computeTax, type TaxResult, taxSettingsOf } from '../../domain/tax.ts';
import { invalidFields } from '../errors.ts';
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
 * while the price stays; `confirming` refuses a discount that can no longer be redeemed.
 */
export async function applyChanges(
  em: EntityManager,
  checkout: Checkout,
  changes: CheckoutChanges,
  offer: Map<string, ProductWire>,
  { chosenAmount, confirming = false }: { chosenAmount: number | null; confirming?: boolean },
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
  await setAmounts(em, checkout, price, amount);
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
) {
  const discount = checkout.discount
    ? await em.findOneOrFail(Discount, checkout.discount.id)
    : null;
  const priceAmount = priceAmountOf(price, { amount, seats: checkout.seats });
  const amounts = checkoutAmounts(
    priceAmount,
    discount &&
      (discount.type === 'fixed'
        ? { type: 'fixed', amount: discount.amount ?? 0 }
        : { type: 'percentage', basisPoints: discount.basisPoints ?? 0 }),
    await taxOf(em, checkout),
  );
  checkout.amount = amounts.amount;
  checkout.discountAmount = amounts.discountAmount;
  checkout.netAmount = amounts.netAmount;
  checkout.taxAmount = amounts.taxAmount;
  checkout.taxLines = amounts.taxLines;
  checkout.totalAmount = amounts.totalAmount;
  checkout.currency = price.priceCurrency ?? 'usd';
}

/**
 * How the checkout's net amount is taxed, once it can be: the organization taxes with its own
 * rates (docs/tax.md) and the buyer's billing country is known; else null (tax_amount null).
 */
async function taxOf(
  em: EntityManager,
  checkout: Checkout,
): Promise<((netAmount: number) => TaxResult) | null> {
  const address = checkout.customerBillingAddress;
  if (!address?.country) return null;
  const organization = await em.findOneOrFail(Organization, checkout.organization.id);
  const settings = taxSettingsOf(organization);
  if (settings.mode !== 'seller_rates') return null;
  const product = await em.findOneOrFail(Product, checkout.product.id);
  const rates = await sellerTaxRates(em, organization.id);
  const buyer = {
    country: address.country,
    state: address.state ?? null,
    taxId: checkout.customerTaxId ?? null,
  };
  return (amount) =>
    computeTax({
      rates,
      sellerCountry: settings.homeCountry,
      behavior: product.taxBehavior,
      buyer,
      amount,
    });
}
