import type { EntityManager } from '@mikro-orm/postgresql';
import { type Checkout, Organization, Product } from '../../db/entities/index.ts';
import { billingAddressFields, checkoutFlags, trialEnd } from '../../domain/checkout-amounts.ts';
import { discountBaseWire } from '../discounts/schemas.ts';
import { organizationWire } from '../organizations/schemas.ts';
import { appendEvent } from '../outbox.ts';
import { priceWire } from '../products/schemas.ts';
import { type ProductWire, serializeProducts } from '../products/service.ts';
import { balancePreviews } from './balance.ts';
import {
  type CheckoutPublicWire,
  type CheckoutView,
  type CheckoutWire,
  checkoutPublicWire,
  checkoutWire,
} from './schemas.ts';
import { effectiveStatus } from './status.ts';

/** The products of `ids` (any organization: callers check ownership), serialized, by id. */
export async function offeredProducts(em: EntityManager, ids: string[], publicUrl: string) {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map<string, ProductWire>();
  const products = await em.find(Product, { id: { $in: unique } });
  const wires = await serializeProducts(em, products, publicUrl);
  return new Map(wires.map((wire) => [wire.id, wire]));
}

/**
 * A checkout's offer read before its transaction locks it, so that the transaction does not wait
 * on these reads: `forLocked` answers it for the checkout as locked, read again (in `tx`) when its
 * products changed meanwhile. Read it with the manager the transaction forks: the products it
 * loads are then known inside.
 */
export async function offerBeforeLock(em: EntityManager, checkoutId: string, publicUrl: string) {
  const [row] = await em.execute<{ product_ids: string[] }[]>(
    'select product_ids from checkouts where id = ?',
    [checkoutId],
  );
  const productIds = row?.product_ids ?? [];
  const offer = await offeredProducts(em, productIds, publicUrl);
  const unchanged = (current: string[]) =>
    current.length === productIds.length && current.every((id, index) => id === productIds[index]);
  return {
    forLocked: async (tx: EntityManager, checkout: Checkout) =>
      unchanged(checkout.productIds) ? offer : offeredProducts(tx, checkout.productIds, publicUrl),
  };
}

/** The trial a checkout of a recurring product starts with: its own, else the product's. */
function activeTrial(checkout: Checkout, product: ProductWire, now: Date) {
  if (!product.is_recurring) return null;
  const interval = checkout.trialInterval ?? product.trial_interval;
  const count = checkout.trialInterval ? checkout.trialIntervalCount : product.trial_interval_count;
  if (!interval || !count) return null;
  return { interval, count, end: trialEnd(now, interval, count) };
}

/**
 * The flags and address fields a checkout answers, from its product and amounts, and what the
 * customer's balance pays of its total (`fromBalance`): its hold once confirmed, or `preview`
 * (balancePreviews) while open; nothing during a trial, which charges nothing now.
 */
export function termsOf(checkout: Checkout, product: ProductWire, now: Date, preview?: number) {
  const trial = activeTrial(checkout, product, now);
  const fromBalance = trial ? 0 : (preview ?? checkout.fromBalanceAmount);
  const flags = checkoutFlags({
    priceTypes: product.prices.map((price) => price.amount_type),
    recurring: product.is_recurring,
    amountDue: checkout.totalAmount - fromBalance,
    trial: trial !== null,
  });
  const fields = billingAddressFields({
    country: checkout.customerBillingAddress?.country ?? null,
    requireBillingAddress: checkout.requireBillingAddress,
    isBusinessCustomer: checkout.isBusinessCustomer,
  });
  return { trial, flags, fields, fromBalance };
}

/**
 * Checkouts as the seller's API answers them, in a fixed number of queries whatever their
 * number: their discounts, customers and prices, then every product they offer once.
 */
export async function serializeCheckouts(
  em: EntityManager,
  checkouts: Checkout[],
  publicUrl: string,
  /** Their products already serialized (by a change that just read them), by id. */
  offer?: Map<string, ProductWire>,
): Promise<CheckoutWire[]> {
  if (checkouts.length === 0) return [];
  const products =
    offer ??
    (await offeredProducts(
      em,
      checkouts.flatMap((checkout) => checkout.productIds),
      publicUrl,
    ));
  const listedPrice = (checkout: Checkout) =>
    products
      .get(checkout.product.id)
      ?.prices.find((price) => price.id === checkout.productPrice.id);
  // The wire shows the subscription by its id only, and the price as its product lists it: only
  // a price no longer listed (archived) is read on its own.
  await em.populate(checkouts, ['discount', 'customer']);
  await em.populate(
    checkouts.filter((checkout) => !listedPrice(checkout)),
    ['productPrice.meter'],
  );
  const now = new Date();
  const statuses = checkouts.map((checkout) => ({
    checkout,
    status: effectiveStatus(checkout, now),
  }));
  const previews = await balancePreviews(em, statuses);
  return statuses.map(({ checkout, status }) => {
    const product = products.get(checkout.product.id);
    if (!product) throw new Error(`Checkout ${checkout.id} offers a product that is gone`);
    const { trial, flags, fields, fromBalance } = termsOf(
      checkout,
      product,
      now,
      previews.get(checkout.id),
    );
    const view: CheckoutView = {
      publicUrl,
      status,
      products: checkout.productIds.flatMap((id) => products.get(id) ?? []),
      product,
      // An archived price is no longer listed with its product, but still what this checkout sells.
      price: listedPrice(checkout) ?? priceWire(checkout.productPrice, checkout.product),
      discount: checkout.discount ? discountBaseWire(checkout.discount) : null,
      flags,
      fromBalance,
      billingAddressFields: fields,
      activeTrial: trial,
    };
    return checkoutWire(checkout, view);
  });
}

/** One checkout as the seller's API answers it. */
export async function serializeCheckout(
  em: EntityManager,
  checkout: Checkout,
  publicUrl: string,
  offer?: Map<string, ProductWire>,
) {
  const [wire] = await serializeCheckouts(em, [checkout], publicUrl, offer);
  return wire as CheckoutWire;
}

/** A checkout's wire shape as its buyer sees it, with the seller organization. */
export async function publicWireOf(em: EntityManager, checkout: Checkout, wire: CheckoutWire) {
  const organization = await em.findOneOrFail(Organization, checkout.organization.id);
  return checkoutPublicWire(wire, organizationWire(organization));
}

/** A checkout as its buyer sees it, with the seller organization. */
export async function serializeCheckoutPublic(
  em: EntityManager,
  checkout: Checkout,
  publicUrl: string,
): Promise<CheckoutPublicWire> {
  return publicWireOf(em, checkout, await serializeCheckout(em, checkout, publicUrl));
}

/** Stamps, flushes and records the event carrying the checkout as /v1 answers it. */
export async function recordChange(
  em: EntityManager,
  checkout: Checkout,
  type: 'checkout.created' | 'checkout.updated',
  publicUrl: string,
  offer?: Map<string, ProductWire>,
): Promise<CheckoutWire> {
  if (type === 'checkout.updated') checkout.modifiedAt = new Date();
  await em.flush();
  const wire = await serializeCheckout(em, checkout, publicUrl, offer);
  appendEvent(em, checkout.organization.id, type, wire);
  return wire;
}
