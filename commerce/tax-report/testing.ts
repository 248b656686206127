import assert from 'node:assert/strict';
import type { AddressInput } from '@polar-sh/sdk/models/components/addressinput.js';
import type { Order } from '@polar-sh/sdk/models/components/order.js';
import { buyerClient, ordersOfCheckout, settledCheckout, testCards } from '../orders/testing.ts';
import type { Seller, TestApi } from '../testing.ts';

/**
 * A paid order of the product, billed to `address` (a business when it gives a tax id): the
 * address is set before paying, so the seller's rates tax the checkout as a buyer sees it.
 */
export async function taxedOrder(
  api: TestApi,
  seller: Seller,
  productId: string,
  address: AddressInput,
  taxId?: string,
): Promise<Order> {
  const buyer = buyerClient(api);
  const created = await seller.polar.checkouts.create({ products: [productId] });
  await buyer.checkouts.clientUpdate({
    clientSecret: created.clientSecret,
    checkoutUpdatePublic: {
      customerBillingAddress: address,
      ...(taxId && { customerTaxId: taxId, isBusinessCustomer: true }),
    },
  });
  await buyer.checkouts.clientConfirm({
    clientSecret: created.clientSecret,
    checkoutConfirmStripe: {
      customerEmail: `report-${created.id}@example.com`,
      customerName: 'Ada Buyer',
      customerBillingAddress: address,
      confirmationTokenId: testCards.visa,
    },
  });
  assert.equal((await settledCheckout(seller, created.id)).status, 'succeeded');
  const [order] = await ordersOfCheckout(seller, created.id);
  assert.ok(order);
  return order;
}
