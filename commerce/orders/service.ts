import { LockMode, type QueryOrderMap } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Order, OrderItem } from '../../db/entities/index.ts';
import { findPage, inList, type ListQuery, type SortDirection } from '../../db/listing.ts';
import { metadataFilterConditions } from '../../db/sql.ts';
import { commerceError, resourceNotFound } from '../errors.ts';
import { appendEvent } from '../outbox.ts';
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
const sortKeys: Record<OrderSortField, (direction: SortDirection) => QueryOrderMap<Order>> = {
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

/** A page of the organization's orders matching the query, and how many match. */
export function listOrders(
  em: EntityManager,
  organizationId: string,
  query: ListQuery<OrderListFilter, OrderSortField>,
): Promise<[Order[], number]> {
  const { productBillingType } = query;
  return findPage(em, Order, {
    where: [
      { organization: organizationId },
      inList('product', query.productIds),
      inList('customer', query.customerIds),
      inList('checkoutId', query.checkoutIds),
      inList('discount', query.discountIds),
      productBillingType && {
        product: { recurringInterval: productBillingType === 'recurring' ? { $ne: null } : null },
      },
      ...metadataFilterConditions(query.metadata),
    ],
    sorting: query.sorting,
    sortKeys,
    page: query.page,
  });
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

/** A document number: the organization's slug, upper-case, then its counter on four digits. */
const documentNumber = (prefix: string, counter: number) =>
  `${prefix.toUpperCase()}-${String(counter).padStart(4, '0')}`;

export const invoiceNumberOf = (row: InvoiceCounterRow) =>
  documentNumber(row.slug, row.last_invoice_number);

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

/**
 * The next credit note number of the organization (`<SLUG>-CN-0001`, …), a sequence of its own
 * counted as invoice numbers are, taken in the caller's transaction.
 */
export async function nextCreditNoteNumber(
  tx: EntityManager,
  organizationId: string,
): Promise<string> {
  const [row] = await tx.execute<{ slug: string; last_credit_note_number: number }[]>(
    `update organizations set last_credit_note_number = last_credit_note_number + 1
     where id = ? returning slug, last_credit_note_number`,
    [organizationId],
  );
  if (!row) throw new Error(`organization ${organizationId} not found`);
  return documentNumber(`${row.slug}-CN`, row.last_credit_note_number);
}
