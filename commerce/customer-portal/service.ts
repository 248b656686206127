import type { EntityManager, FilterQuery, QueryOrderMap } from '@mikro-orm/core';
import type { BenefitType } from '../../db/entities/benefit.ts';
import {
  type Benefit,
  BenefitGrant,
  type Customer,
  CustomerOAuthAccount,
  Order,
} from '../../db/entities/index.ts';
import { findPage, inList, type ListQuery, likePattern, oldestFirst } from '../../db/listing.ts';
import { resourceNotFound } from '../errors.ts';
import type { CustomerBenefitGrantSortField, CustomerOrderSortField } from './schemas.ts';

/** The accounts (Discord, GitHub) the customer linked, for its portal profile. */
export const customerOAuthAccounts = (em: EntityManager, customer: Customer) =>
  em.find(CustomerOAuthAccount, { customer }, { orderBy: { platform: 'asc' } });

export interface CustomerBenefitGrantFilter {
  types: BenefitType[];
  benefitIds: string[];
  organizationIds: string[];
  checkoutIds: string[];
  orderIds: string[];
  subscriptionIds: string[];
}

const grantSortColumns = {
  granted_at: (direction: 'asc' | 'desc') => ({ grantedAt: direction }),
  type: (direction: 'asc' | 'desc') => ({ benefit: { type: direction } }),
  organization: (direction: 'asc' | 'desc') => ({ benefit: { organization: { slug: direction } } }),
} as const;

/**
 * One page of the customer's own grants (benefit, its organization loaded). A session belongs
 * to one customer of one organization: nothing else can match.
 */
export async function listCustomerBenefitGrants(
  em: EntityManager,
  customer: Customer,
  query: ListQuery<CustomerBenefitGrantFilter, CustomerBenefitGrantSortField>,
): Promise<[BenefitGrant[], number]> {
  const benefit: FilterQuery<Benefit> = {
    ...(query.types.length > 0 && { type: { $in: query.types } }),
    ...(query.benefitIds.length > 0 && { id: { $in: query.benefitIds } }),
    ...(query.organizationIds.length > 0 && { organization: { $in: query.organizationIds } }),
  };
  const { checkoutIds } = query;
  const orderIds = checkoutIds.length ? await ordersOfCheckouts(em, customer, checkoutIds) : [];
  return findPage(em, BenefitGrant, {
    where: [
      { customer, benefit },
      checkoutIds.length > 0 && { orderId: { $in: orderIds } },
      inList('orderId', query.orderIds),
      inList('subscriptionId', query.subscriptionIds),
    ],
    sorting: query.sorting,
    sortKeys: grantSortColumns,
    thenBy: oldestFirst,
    page: query.page,
    populate: ['benefit.organization'],
  });
}

async function ordersOfCheckouts(em: EntityManager, customer: Customer, checkoutIds: string[]) {
  const orders = await em.find(
    Order,
    { customer, checkoutId: { $in: checkoutIds } },
    { fields: ['id'] },
  );
  return orders.map((order) => order.id);
}

/** One of the customer's own grants; another customer's is not found. */
export async function getCustomerBenefitGrant(em: EntityManager, customer: Customer, id: string) {
  const grant = await em.findOne(
    BenefitGrant,
    { id, customer },
    { populate: ['benefit.organization'] },
  );
  if (!grant) throw resourceNotFound('Benefit grant not found');
  return grant;
}

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
