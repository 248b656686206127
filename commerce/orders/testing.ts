import { randomBytes } from 'node:crypto';
import type { Polar } from '@polar-sh/sdk';
import type { Checkout } from '@polar-sh/sdk/models/components/checkout.js';
import type { CheckoutConfirmStripe } from '@polar-sh/sdk/models/components/checkoutconfirmstripe.js';
import type { Order } from '@polar-sh/sdk/models/components/order.js';
import { eventually } from '../../devstack/eventually.ts';
import { polarClient, type Seller, type TestApi } from '../testing.ts';

/** Stripe's documented test payment methods, as the Stripe simulator answers them. */
export const testCards = {
  visa: 'pm_card_visa',
  declined: 'pm_card_chargeDeclined',
  insufficientFunds: 'pm_card_chargeDeclinedInsufficientFunds',
  authenticationRequired: 'pm_card_authenticationRequired',
} as const;

/** A buyer's details that satisfy every confirm requirement (a French address asks no state). */
export function buyerDetails(card: string | null = testCards.visa): CheckoutConfirmStripe {
  const tag = randomBytes(5).toString('hex');
  return {
    customerEmail: `buyer-${tag}@example.com`,
    customerName: 'Ada Buyer',
    customerBillingAddress: { country: 'FR', city: 'Paris', line1: '1 rue de Rivoli' },
    ...(card && { confirmationTokenId: card }),
  };
}

/** The buyer's side: no credentials, as the hosted checkout page calls the API. */
export const buyerClient = (api: TestApi): Polar => polarClient(api.url);

/** The checkout once its workflow settled it (succeeded, failed or expired). */
export function settledCheckout(
  seller: Seller,
  checkoutId: string,
  statuses: Checkout['status'][] = ['succeeded', 'failed', 'expired'],
): Promise<Checkout> {
  return eventually(
    () => seller.polar.checkouts.get({ id: checkoutId }),
    (checkout) => statuses.includes(checkout.status),
    { what: `checkout ${checkoutId} ${statuses.join(' or ')}` },
  );
}

/** The orders a checkout made, through the seller's API. */
export async function ordersOfCheckout(seller: Seller, checkoutId: string): Promise<Order[]> {
  const page = await seller.polar.orders.list({ checkoutId });
  return page.result.items;
}

/**
 * Buys `productId` as a new buyer through a checkout (create, confirm with `details`), and
 * answers the checkout once settled with its order, if any.
 */
export async function buy(
  api: TestApi,
  seller: Seller,
  productId: string,
  details: CheckoutConfirmStripe = buyerDetails(),
  create: { amount?: number; discountId?: string } = {},
): Promise<{ checkout: Checkout; order: Order | undefined }> {
  const created = await seller.polar.checkouts.create({ products: [productId], ...create });
  await buyerClient(api).checkouts.clientConfirm({
    clientSecret: created.clientSecret,
    checkoutConfirmStripe: details,
  });
  const checkout = await settledCheckout(seller, created.id);
  const [order] = await ordersOfCheckout(seller, created.id);
  return { checkout, order };
}
