import type { FilterQuery, LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { CheckoutStatus } from '../../db/entities/checkout.ts';
import { Checkout } from '../../db/entities/index.ts';
import { likePattern, orderBy, type Page, type SortCriterion } from '../../db/listing.ts';
import { commerceError, resourceNotFound } from '../errors.ts';
import type { checkoutSortFields } from './schemas.ts';
import { effectiveStatus } from './status.ts';

export interface CheckoutListFilter {
  productIds: string[];
  customerIds: string[];
  statuses: CheckoutStatus[];
  query: string | undefined;
}

/** A page of the organization's checkouts matching `filter`, and how many match. */
export function listCheckouts(
  em: EntityManager,
  organizationId: string,
  filter: CheckoutListFilter,
  sorting: SortCriterion<(typeof checkoutSortFields)[number]>[],
  page: Page,
): Promise<[Checkout[], number]> {
  const where: FilterQuery<Checkout> = {
    organization: organizationId,
    ...(filter.productIds.length && { product: { $in: filter.productIds } }),
    ...(filter.customerIds.length && { customer: { $in: filter.customerIds } }),
    ...(filter.statuses.length && { status: { $in: filter.statuses } }),
    ...(filter.query && { customerEmail: { $ilike: likePattern(filter.query) } }),
  };
  const columns = { created_at: 'createdAt', expires_at: 'expiresAt', status: 'status' };
  return em.findAndCount(Checkout, where, {
    orderBy: [...orderBy(sorting, columns), { id: 'asc' }],
    limit: page.limit,
    offset: page.offset,
  });
}

/** A checkout of the organization; another organization's is not found. */
export async function getCheckout(
  em: EntityManager,
  organizationId: string,
  id: string,
): Promise<Checkout> {
  const checkout = await em.findOne(Checkout, { id, organization: organizationId });
  if (!checkout) throw resourceNotFound('Checkout not found');
  return checkout;
}

/** The checkout a buyer holds the secret of, whatever its status: unknown answers 404. */
export async function findCheckoutByClientSecret(
  em: EntityManager,
  clientSecret: string,
  lockMode?: LockMode,
): Promise<Checkout> {
  const checkout = await em.findOne(Checkout, { clientSecret }, { lockMode });
  if (!checkout) throw resourceNotFound('Checkout not found');
  return checkout;
}

/** The checkout a buyer holds the secret of: unknown answers 404, expired 410. */
export async function getCheckoutByClientSecret(
  em: EntityManager,
  clientSecret: string,
  lockMode?: LockMode,
): Promise<Checkout> {
  const checkout = await findCheckoutByClientSecret(em, clientSecret, lockMode);
  if (effectiveStatus(checkout) === 'expired') throw commerceError('ExpiredCheckoutError');
  return checkout;
}
