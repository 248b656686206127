import type { EntityManager, FilterQuery, QueryOrderMap } from '@mikro-orm/core';
import type { BenefitType } from '../../db/entities/benefit.ts';
import {
  type Benefit,
  BenefitGrant,
  type Customer,
  CustomerOAuthAccount,
  Order,
} from '../../db/entities/index.ts';
import { resourceNotFound } from '../errors.ts';
import { likePattern, type Page, type SortCriterion } from '../http/listing.ts';
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
  filter: CustomerBenefitGrantFilter,
  sorting: SortCriterion<CustomerBenefitGrantSortField>[],
  page: Page,
): Promise<[BenefitGrant[], number]> {
  const benefit: FilterQuery<Benefit> = {
    ...(filter.types.length > 0 && { type: { $in: filter.types } }),
    ...(filter.benefitIds.length > 0 && { id: { $in: filter.benefitIds } }),
    ...(filter.organizationIds.length > 0 && { organization: { $in: filter.organizationIds } }),
  };
  const orderIds = filter.checkoutIds.length
    ? await ordersOfCheckouts(em, customer, filter.checkoutIds)
    : [];
  const where: FilterQuery<BenefitGrant> = {
    customer,
    benefit,
    $and: [
      ...(filter.checkoutIds.length > 0 ? [{ orderId: { $in: orderIds } }] : []),
      ...(filter.orderIds.length > 0 ? [{ orderId: { $in: filter.orderIds } }] : []),
      ...(filter.subscriptionIds.length > 0
        ? [{ subscriptionId: { $in: filter.subscriptionIds } }]
        : []),
    ],
  };
  return em.findAndCount(BenefitGrant, where, {
    populate: ['benefit.organization'],
    orderBy: [
      ...sorting.map(({ field, descending }) =>
        grantSortColumns[field](descending ? 'desc' : 'asc'),
      ),
      { createdAt: 'asc' },
      { id: 'asc' },
    ],
    limit: page.limit,
    offset: page.offset,
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
  filter: CustomerOrderFilter,
  sorting: SortCriterion<CustomerOrderSortField>[],
  page: Page,
): Promise<[Order[], number]> {
  const conditions: FilterQuery<Order>[] = [{ customer }];
  if (filter.organizationIds.length) {
    conditions.push({ organization: { $in: filter.organizationIds } });
  }
  if (filter.productIds.length) conditions.push({ product: { $in: filter.productIds } });
  if (filter.subscriptionIds.length) {
    conditions.push({ subscription: { $in: filter.subscriptionIds } });
  }
  // Both billing types asked for is no filter at all.
  if (filter.productBillingTypes.length === 1) {
    const recurring = filter.productBillingTypes[0] === 'recurring';
    conditions.push({ product: { recurringInterval: recurring ? { $ne: null } : null } });
  }
  if (filter.query) conditions.push({ product: { name: { $ilike: likePattern(filter.query) } } });
  return em.findAndCount(
    Order,
    { $and: conditions },
    {
      orderBy: [
        ...sorting.map(({ field, descending }) =>
          orderSortKeys[field](descending ? 'desc' : 'asc'),
        ),
        { id: 'asc' },
      ],
      limit: page.limit,
      offset: page.offset,
    },
  );
}

/** One of the customer's own orders; another customer's is not found. */
export async function getCustomerOrder(em: EntityManager, customer: Customer, id: string) {
  const order = await em.findOne(Order, { id, customer });
  if (!order) throw resourceNotFound('Order not found');
  return order;
}
