import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import { announceChange } from '../../db/change-notifications.ts';
import { OrganizationAccessToken } from '../../db/entities/index.ts';
import { hashToken, organizationTokenPrefix } from '../http/caller.ts';
import { resourceNotFound } from '../http/errors.ts';
import { orderBy, type Page, type SortCriterion } from '../http/listing.ts';
import {
  type AccessTokenSortField,
  type AccessTokenUpdateInput,
  accessTokenSortColumns,
} from './schemas.ts';

export interface NewAccessToken {
  organizationId: string;
  comment: string;
  scopes: string[];
  expiresAt?: Date | null;
  createdByUserId?: string | null;
}

/** Issues a token; the answer holds the only copy of its secret (the table keeps a hash). */
export async function createAccessToken(em: EntityManager, input: NewAccessToken) {
  const token = `${organizationTokenPrefix}${randomBytes(32).toString('base64url')}`;
  const accessToken = em.create(OrganizationAccessToken, {
    organization: input.organizationId,
    tokenHash: hashToken(token),
    comment: input.comment,
    scopes: [...new Set(input.scopes)],
    expiresAt: input.expiresAt ?? null,
    createdBy: input.createdByUserId ?? null,
  });
  await em.flush();
  return { accessToken, token };
}

/** One page of the organization's tokens and how many it has. */
export function listAccessTokens(
  em: EntityManager,
  organizationId: string,
  page: Page,
  sorting: SortCriterion<AccessTokenSortField>[],
) {
  return em.findAndCount(
    OrganizationAccessToken,
    { organization: organizationId },
    {
      // The id breaks ties, so equal sort values never shuffle between pages.
      orderBy: [...orderBy(sorting, accessTokenSortColumns), { id: 'asc' }],
      limit: page.limit,
      offset: page.offset,
    },
  );
}

async function findAccessToken(em: EntityManager, organizationId: string, id: string) {
  const token = await em.findOne(OrganizationAccessToken, { id, organization: organizationId });
  if (!token) throw resourceNotFound('Organization access token not found');
  return token;
}

export async function updateAccessToken(
  em: EntityManager,
  organizationId: string,
  id: string,
  input: AccessTokenUpdateInput,
) {
  return em.transactional(async (tx) => {
    const token = await findAccessToken(tx, organizationId, id);
    if (input.comment) token.comment = input.comment;
    if (input.scopes) token.scopes = [...new Set(input.scopes)];
    await tx.flush();
    // Processes holding the token's old scopes drop them when this commits.
    await announceChange(tx, 'accessToken', token.tokenHash);
    return token;
  });
}

/** Revoking deletes the row: the next request with the token answers 401 invalid_token. */
export async function revokeAccessToken(em: EntityManager, organizationId: string, id: string) {
  await em.transactional(async (tx) => {
    const token = await findAccessToken(tx, organizationId, id);
    await tx.remove(token).flush();
    await announceChange(tx, 'accessToken', token.tokenHash);
  });
}
