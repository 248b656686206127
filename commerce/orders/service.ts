import { type FilterQuery, LockMode, type QueryOrderMap } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { CheckoutPaymentError } from '../../db/entities/checkout.ts';
import { Checkout, Order, OrderItem, Payment } from '../../db/entities/index.ts';
import { metadataFilterConditions } from '../../db/sql.ts';
import {
  offeredProducts,
  releaseDiscountRedemption,
  serializeCheckouts,
} from '../checkouts/service.ts';
import { announceCustomerStateChange } from '../customers/service.ts';
import { commerceError, resourceNotFound } from '../errors.ts';
import type { Page, SortCriterion } from '../http/listing.ts';
import { appendEvent } from '../outbox.ts';
import type { ProductWire } from '../products/service.ts';
import { startSubscriptionFromCheckout } from '../subscriptions/service.ts';
import {
  type OrderUpdateInput,
  type OrderWire,
  type orderSortFields,
  orderWire,
} from './schemas.ts';

type OrderSortField = (typeof orderSortFields)[number];

/** Orders as /v1 answers them: customers, products, discounts and subscriptions populated, items in one query. */
export async function serializeOrders(em: EntityManager, orders: Order[]): Promise<OrderWire[]> {
  if (orders.length === 0) return [];
  await em.populate(orders, ['customer', 'product', 'discount', 'subscription']);
  const items = await em.find(
    OrderItem,
    { order: { $in: orders.map((order) => order.id) } },
    { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] },
  );
  return orders.map((order) =>
    orderWire(
      order,
      items.filter((item) => item.order.id === order.id),
    ),
  );
}

export interface OrderListFilter {
  productIds: string[];
  customerIds: string[];
  checkoutIds: string[];
  discountIds: string[];
  productBillingType?: 'one_time' | 'recurring' | undefined;
  metadata: Record<string, string[]>;
}

/** The sort key of a field: related rows sort by what a person reads of them. */
const sortKeys: Record<OrderSortField, (direction: 'asc' | 'desc') => QueryOrderMap<Order>> = {
  created_at: (direction) => ({ createdAt: direction }),
  status: (direction) => ({ status: direction }),
  invoice_number: (direction) => ({ invoiceNumber: direction }),
  amount: (direction) => ({ totalAmount: direction }),
  net_amount: (direction) => ({ netAmount: direction }),
  customer: (direction) => ({ customer: { email: direction } }),
  product: (direction) => ({ product: { name: direction } }),
  discount: (direction) => ({ discount: { name: direction } }),
  subscription: (direction) => ({ subscription: { createdAt: direction } }),
};

/** A page of the organization's orders matching `filter`, and how many match. */
export function listOrders(
  em: EntityManager,
  organizationId: string,
  filter: OrderListFilter,
  sorting: SortCriterion<OrderSortField>[],
  page: Page,
): Promise<[Order[], number]> {
  const conditions: FilterQuery<Order>[] = [{ organization: organizationId }];
  if (filter.productIds.length) conditions.push({ product: { $in: filter.productIds } });
  if (filter.customerIds.length) conditions.push({ customer: { $in: filter.customerIds } });
  if (filter.checkoutIds.length) conditions.push({ checkoutId: { $in: filter.checkoutIds } });
  if (filter.discountIds.length) conditions.push({ discount: { $in: filter.discountIds } });
  if (filter.productBillingType) {
    const recurring = filter.productBillingType === 'recurring';
    conditions.push({ product: { recurringInterval: recurring ? { $ne: null } : null } });
  }
  conditions.push(...metadataFilterConditions(filter.metadata));
  return em.findAndCount(
    Order,
    { $and: conditions },
    {
      orderBy: [
        ...sorting.map(({ field, descending }) => sortKeys[field](descending ? 'desc' : 'asc')),
        { id: 'asc' },
      ],
      limit: page.limit,
      offset: page.offset,
    },
  );
}

/** An order of the organization; other organizations' are not found. */
export async function getOrder(
  em: EntityManager,
  organizationId: string,
  id: string,
  lockMode?: LockMode,
): Promise<Order> {
  const order = await em.findOne(Order, { id, organization: organizationId }, { lockMode });
  if (!order) throw resourceNotFound('Order not found');
  return order;
}

/** Sets the name and address the invoice is made out to; records order.updated. */
export function updateOrder(
  em: EntityManager,
  organizationId: string,
  id: string,
  input: OrderUpdateInput,
): Promise<Order> {
  return em.transactional(async (tx) => {
    const order = await getOrder(tx, organizationId, id, LockMode.PESSIMISTIC_WRITE);
    order.billingName = input.billing_name || null;
    order.billingAddress = input.billing_address;
    order.modifiedAt = new Date();
    await tx.flush();
    const [wire] = await serializeOrders(tx, [order]);
    appendEvent(tx, organizationId, 'order.updated', wire as OrderWire);
    return order;
  });
}

/**
 * Marks the order's invoice generated: once, for a paid order with the name and address it is
 * made out to. The document itself is rendered when asked for (see invoiceDocument).
 */
export function generateInvoice(
  em: EntityManager,
  organizationId: string,
  id: string,
): Promise<Order> {
  return em.transactional(async (tx) => {
    const order = await getOrder(tx, organizationId, id, LockMode.PESSIMISTIC_WRITE);
    if (order.isInvoiceGenerated) throw commerceError('InvoiceAlreadyExists');
    if (order.status === 'pending') throw commerceError('NotPaidOrder');
    if (!order.billingName || !order.billingAddress) {
      throw commerceError('MissingInvoiceBillingDetails');
    }
    order.isInvoiceGenerated = true;
    order.modifiedAt = new Date();
    await tx.flush();
    const [wire] = await serializeOrders(tx, [order]);
    appendEvent(tx, organizationId, 'order.updated', wire as OrderWire);
    return order;
  });
}

/** What the organization's invoice counter answered, as an invoice number (`<SLUG>-0001`, …). */
export interface InvoiceCounterRow {
  slug: string;
  last_invoice_number: number;
}

export const invoiceNumberOf = (row: InvoiceCounterRow) =>
  `${row.slug.toUpperCase()}-${String(row.last_invoice_number).padStart(4, '0')}`;

/** The next invoice number of the organization (`<SLUG>-0001`, …), taken in the caller's transaction. */
export async function nextInvoiceNumber(
  tx: EntityManager,
  organizationId: string,
): Promise<string> {
  const [row] = await tx.execute<InvoiceCounterRow[]>(
    `update organizations set last_invoice_number = last_invoice_number + 1
     where id = ? returning slug, last_invoice_number`,
    [organizationId],
  );
  if (!row) throw new Error(`organization ${organizationId} not found`);
  return invoiceNumberOf(row);
}

async function checkoutWireOf(
  tx: EntityManager,
  checkout: Checkout,
  publicUrl: string,
  offer?: Map<string, ProductWire>,
) {
  const [wire] = await serializeCheckouts(tx, [checkout], publicUrl, offer);
  return wire as object;
}

/** A succeeded checkout: its order, and what the benefit grants need. */
export interface CompletedCheckout {
  organizationId: string;
  customerId: string;
  productId: string;
  orderId: string;
  subscriptionId: string | null;
}

const completed = (order: Order): CompletedCheckout => ({
  organizationId: order.organization.id,
  customerId: order.customer.id,
  productId: order.product.id,
  orderId: order.id,
  subscriptionId: order.subscription?.id ?? null,
});

/**
 * A confirmed checkout paid (or owing nothing), made an order in one transaction: the paid order
 * with its item and the checkout's amounts and billing details, its invoice number, the payment
 * linked to it; for a recurring product the subscription with its first period, charged on
 * `paymentMethodId` (the card the checkout saved) at renewal; the checkout succeeded. Records
 * order.created, order.paid, checkout.updated (and the subscription's events). Run twice, the
 * second run finds the order by its checkout and answers it.
 */
export function completeCheckout(
  em: EntityManager,
  checkoutId: string,
  paymentId: string | null,
  publicUrl: string,
  paymentMethodId: string | null = null,
): Promise<CompletedCheckout> {
  return em.transactional(async (tx) => {
    // Locked first: of two runs at once, the second waits and then finds the order.
    const checkout = await tx.findOneOrFail(
      Checkout,
      { id: checkoutId },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    // The order and the checkout's success are written together: a succeeded checkout has it.
    if (checkout.status === 'succeeded' && checkout.order) {
      return completed(await tx.findOneOrFail(Order, checkout.order.id));
    }
    if (checkout.status !== 'confirmed' || !checkout.customer) {
      throw new Error(`checkout ${checkoutId} is ${checkout.status}, not confirmed`);
    }
    // What the order and the checkout's event show of them, read before the invoice number is
    // taken: from then until the commit the organization's row is locked, and every checkout of
    // the organization completing meanwhile waits for it.
    await tx.populate(checkout, ['product', 'discount', 'customer', 'productPrice.meter']);
    const offer = await offeredProducts(tx, checkout.productIds, publicUrl);
    const organizationId = checkout.organization.id;
    const recurring = checkout.product.recurringInterval != null;
    const subscription = recurring
      ? await startSubscriptionFromCheckout(tx, checkout, publicUrl)
      : null;
    if (subscription) subscription.stripePaymentMethodId = paymentMethodId;
    // A trial takes nothing now: its order is for nothing, until the first renewal.
    const trialing = subscription?.status === 'trialing';
    const amounts = trialing
      ? { subtotal: 0, discount: 0, net: 0, tax: 0, total: 0 }
      : {
          subtotal: checkout.amount,
          discount: checkout.discountAmount,
          net: checkout.netAmount,
          tax: checkout.taxAmount ?? 0,
          total: checkout.totalAmount,
        };
    const order = tx.create(Order, {
      organization: organizationId,
      customer: checkout.customer,
      product: checkout.product,
      discount: checkout.discount ?? null,
      subscription,
      checkoutId,
      status: 'paid',
      billingReason: recurring ? 'subscription_create' : 'purchase',
      subtotalAmount: amounts.subtotal,
      discountAmount: amounts.discount,
      netAmount: amounts.net,
      taxAmount: amounts.tax,
      totalAmount: amounts.total,
      currency: checkout.currency,
      billingName: checkout.customerBillingName ?? checkout.customerName ?? null,
      billingAddress: checkout.customerBillingAddress ?? null,
      invoiceNumber: await nextInvoiceNumber(tx, organizationId),
      metadata: checkout.metadata,
      customFieldData: checkout.customFieldData,
    });
    const item = tx.create(OrderItem, {
      order,
      label: trialing ? `${checkout.product.name} (trial)` : checkout.product.name,
      amount: amounts.subtotal,
      taxAmount: amounts.tax,
      productPrice: checkout.productPrice,
    });
    checkout.status = 'succeeded';
    checkout.order = order;
    checkout.subscription = subscription;
    checkout.paymentError = null;
    await tx.flush();
    if (paymentId) {
      await tx.nativeUpdate(Payment, { id: paymentId }, { order: order.id, status: 'succeeded' });
    }
    const wire = orderWire(order, [item]);
    appendEvent(tx, organizationId, 'order.created', wire);
    appendEvent(tx, organizationId, 'order.paid', wire);
    appendEvent(
      tx,
      organizationId,
      'checkout.updated',
      await checkoutWireOf(tx, checkout, publicUrl, offer),
    );
    if (subscription) await announceCustomerStateChange(tx, organizationId, checkout.customer.id);
    return completed(order);
  });
}

/**
 * A declined (or abandoned) payment of a confirmed checkout: the checkout failed with the
 * processor's message, which its buyer may confirm again, and its discount redemption is given
 * back (a confirm again redeems anew). Records checkout.updated; a checkout no longer confirmed
 * (failed already, succeeded, expired) is left as it is.
 */
export function failCheckoutPayment(
  em: EntityManager,
  checkoutId: string,
  paymentError: CheckoutPaymentError,
  publicUrl: string,
): Promise<void> {
  return em.transactional(async (tx) => {
    const checkout = await tx.findOneOrFail(
      Checkout,
      { id: checkoutId },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (checkout.status !== 'confirmed') return;
    checkout.status = 'failed';
    checkout.paymentError = paymentError;
    await releaseDiscountRedemption(tx, checkoutId);
    await tx.flush();
    appendEvent(
      tx,
      checkout.organization.id,
      'checkout.updated',
      await checkoutWireOf(tx, checkout, publicUrl),
    );
  });
}
