import type { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { CheckoutStatus } from '../../db/entities/checkout.ts';
import { Checkout } from '../../db/entities/index.ts';
import { findPage, inList, type ListQuery, textSearch } from '../../db/listing.ts';
import { commerceError, resourceNotFound } from '../errors.ts';
import type { checkoutSortFields } from './schemas.ts';
import { effectiveStatus } from './status.ts';

export interface CheckoutListFilter {
  productIds: string[];
  customerIds: string[];
  statuses: CheckoutStatus[];
  query: string | undefined;
}

/** A page of the organization's checkouts matching the query, and how many match. */
export function listCheckouts(
  em: EntityManager,
  organizationId: string,
  query: ListQuery<CheckoutListFilter, (typeof checkoutSortFields)[number]>,
): Promise<[Checkout[], number]> {
  return findPage(em, Checkout, {
    where: [
      { organization: organizationId },
      inList('product', query.productIds),
      inList('customer', query.customerIds),
      inList('status', query.statuses),
      textSearch(['customerEmail'], query.query),
    ],
    sorting: query.sorting,
    sortKeys: { created_at: 'createdAt', expires_at: 'expiresAt', status: 'status' },
    page: query.page,
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
