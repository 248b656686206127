import type { QueryOrderMap } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  type Customer,
  Order,
  Organization,
  Payment,
  type Subscription,
} from '../../db/entities/index.ts';
import { findPage, inList, type ListQuery, likePattern } from '../../db/listing.ts';
import { declineReasonOf } from '../../domain/decline-reasons.ts';
import { type CustomerOrderSortField, customerOrderWire } from '../customer-portal/schemas.ts';
import { commerceError, resourceNotFound } from '../errors.ts';
import { type OrganizationWire, organizationWire } from '../organizations/schemas.ts';
import { type ProductWire, serializeProducts } from '../products/service.ts';
import { renewalOrderIdOf } from '../subscriptions/lifecycle.ts';
import type { OrderUpdateInput, OrderWire } from './schemas.ts';
import { generateInvoice, serializeOrders, updateOrder } from './service.ts';

/**
 * The customer portal's operations on the session customer's own orders (their routes:
 * customerPortalOrderRoutes): billing details, the invoice, the payment's status, and the retry
 * of a failed renewal. Another customer's order is not found, exactly as an unknown one.
 */

export interface CustomerOrderFilter {
  organizationIds: string[];
  productIds: string[];
  productBillingTypes: ('one_time' | 'recurring')[];
  subscriptionIds: string[];
  /** Part of the product's name. */
  query?: string | undefined;
}

const orderSortKeys: Record<
  CustomerOrderSortField,
  (direction: 'asc' | 'desc') => QueryOrderMap<Order>
> = {
  created_at: (direction) => ({ createdAt: direction }),
  amount: (direction) => ({ totalAmount: direction }),
  net_amount: (direction) => ({ netAmount: direction }),
  product: (direction) => ({ product: { name: direction } }),
  subscription: (direction) => ({ subscription: { createdAt: direction } }),
};

/** One page of the customer's own orders. */
export function listCustomerOrders(
  em: EntityManager,
  customer: Customer,
  query: ListQuery<CustomerOrderFilter, CustomerOrderSortField>,
): Promise<[Order[], number]> {
  const billingTypes = query.productBillingTypes;
  return findPage(em, Order, {
    where: [
      { customer },
      inList('organization', query.organizationIds),
      inList('product', query.productIds),
      inList('subscription', query.subscriptionIds),
      // Both billing types asked for is no filter at all.
      billingTypes.length === 1 && {
        product: { recurringInterval: billingTypes[0] === 'recurring' ? { $ne: null } : null },
      },
      query.query && { product: { name: { $ilike: likePattern(query.query) } } },
    ],
    sorting: query.sorting,
    sortKeys: orderSortKeys,
    page: query.page,
  });
}

/** One of the customer's own orders; another customer's is not found. */
export async function getCustomerOrder(em: EntityManager, customer: Customer, id: string) {
  const order = await em.findOne(Order, { id, customer });
  if (!order) throw resourceNotFound('Order not found');
  return order;
}

/** Orders as their customer sees them (Polar's `CustomerOrder`): products and organizations once each. */
export async function serializeCustomerOrders(
  em: EntityManager,
  orders: Order[],
  publicUrl: string,
) {
  const wires = await serializeOrders(em, orders);
  const products = [...new Map(orders.map((order) => [order.product.id, order.product])).values()];
  const productWires = await serializeProducts(em, products, publicUrl);
  const organizations = await em.find(Organization, {
    id: { $in: [...new Set(orders.map((order) => order.organization.id))] },
  });
  const productOf = new Map(productWires.map((product) => [product.id, product]));
  const organizationOf = new Map(organizations.map((org) => [org.id, organizationWire(org)]));
  return orders.map((order, index) =>
    customerOrderWire(
      wires[index] as OrderWire,
      productOf.get(order.product.id) as ProductWire,
      organizationOf.get(order.organization.id) as OrganizationWire,
    ),
  );
}

/** Corrects the name and address the customer's order is billed to (records order.updated). */
export async function updateCustomerOrder(
  em: EntityManager,
  customer: Customer,
  id: string,
  input: OrderUpdateInput,
): Promise<Order> {
  const order = await getCustomerOrder(em, customer, id);
  return updateOrder(em, order.organization.id, order.id, input);
}

/** Makes out the invoice of the customer's paid order, once, as the seller's API does. */
export async function generateCustomerInvoice(
  em: EntityManager,
  customer: Customer,
  id: string,
): Promise<Order> {
  const order = await getCustomerOrder(em, customer, id);
  return generateInvoice(em, order.organization.id, order.id);
}

/** The customer's order whose invoice was made out; not found before. */
export async function customerInvoicedOrder(
  em: EntityManager,
  customer: Customer,
  id: string,
): Promise<Order> {
  const order = await getCustomerOrder(em, customer, id);
  if (!order.isInvoiceGenerated) throw resourceNotFound('Invoice not found');
  return order;
}

/**
 * How the payment of the customer's order stands (Polar's `CustomerOrderPaymentStatus`): paid
 * (`succeeded`), its last attempt `failed` with the readable reason, or `pending` (not tried
 * yet, being decided, or waiting for the card holder's authentication).
 */
export async function customerOrderPaymentStatus(
  em: EntityManager,
  customer: Customer,
  id: string,
): Promise<{ status: 'succeeded' | 'failed' | 'pending'; error: string | null }> {
  const order = await getCustomerOrder(em, customer, id);
  if (order.status !== 'pending') return { status: 'succeeded', error: null };
  const last = await em.findOne(
    Payment,
    { order: order.id },
    { orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] },
  );
  if (last?.status === 'failed') {
    return {
      status: 'failed',
      error: declineReasonOf(last.declineReason) ?? last.declineMessage ?? null,
    };
  }
  return { status: 'pending', error: null };
}

/**
 * The customer's order their retry names, and its subscription: only the open renewal order of
 * a past-due (or unpaid) subscription of theirs can be retried (OrderNotEligibleForRetry).
 */
export async function retryableCustomerOrder(
  em: EntityManager,
  customer: Customer,
  id: string,
): Promise<{ order: Order; subscription: Subscription }> {
  const order = await getCustomerOrder(em, customer, id);
  const subscription =
    order.subscription && (await em.populate(order, ['subscription'])).subscription;
  const failing = subscription?.status === 'past_due' || subscription?.status === 'unpaid';
  const periodEnd = subscription?.currentPeriodEnd;
  const open =
    order.status === 'pending' &&
    order.billingReason === 'subscription_cycle' &&
    periodEnd &&
    renewalOrderIdOf(subscription.id, periodEnd) === order.id;
  if (!subscription || !failing || !open) throw commerceError('OrderNotEligibleForRetry');
  return { order, subscription };
}
