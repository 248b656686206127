import { randomBytes } from 'node:crypto';
import type { FilterQuery } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { lockRow } from '../../accounts/organization/limits.ts';
import { announceChange } from '../../db/change-notifications.ts';
import { OrganizationAccessToken } from '../../db/entities/index.ts';
import { findPage, type ListQuery } from '../../db/listing.ts';
import { isCommerceWriter } from '../../domain/organization-permissions.ts';
import { hashToken } from '../../domain/token-hashes.ts';
import { organizationTokenPrefix } from '../caller.ts';
import { notPermitted, resourceNotFound } from '../errors.ts';
import {
  type AccessTokenSortField,
  type AccessTokenUpdateInput,
  accessTokenSortColumns,
  defaultLifetimeSeconds,
} from './schemas.ts';

export interface NewAccessToken {
  organizationId: string;
  comment: string;
  scopes: string[];
  /** Absent: `defaultLifetimeSeconds` from now; null: never (asked for explicitly). */
  expiresAt?: Date | null;
  /** The member creating it, who must be an owner or admin; absent for seeds and tests. */
  createdByUserId?: string | null;
}

/** Issues a token; the answer holds the only copy of its secret (the table keeps a hash). */
export async function createAccessToken(em: EntityManager, input: NewAccessToken) {
  const token = `${organizationTokenPrefix}${randomBytes(32).toString('base64url')}`;
  const expiresAt =
    input.expiresAt === undefined
      ? new Date(Date.now() + defaultLifetimeSeconds * 1000)
      : input.expiresAt;
  const accessToken = await em.transactional(async (tx) => {
    if (input.createdByUserId) {
      await requireWriterMembership(tx, input.organizationId, input.createdByUserId);
    }
    return tx.create(OrganizationAccessToken, {
      organization: input.organizationId,
      tokenHash: hashToken(token),
      comment: input.comment,
      scopes: [...new Set(input.scopes)],
      expiresAt,
      createdBy: input.createdByUserId ?? null,
    });
  });
  return { accessToken, token };
}

/**
 * The creator must be an owner or admin of the organization when the token is written. Their
 * membership row stays share-locked until then: a removal or demotion at the same moment
 * (revokeTokensOfCreator locks the row for update) either waits and revokes the new token too,
 * or commits first and is seen here.
 */
async function requireWriterMembership(em: EntityManager, organizationId: string, userId: string) {
  const [membership] = await em.execute<{ role: string }[]>(
    'select role from members where organization_id = ? and user_id = ? for share',
    [organizationId, userId],
  );
  if (!membership || !isCommerceWriter(membership.role)) {
    throw notPermitted('Only owners and admins of the organization create its access tokens.');
  }
}

/** One page of the organization's tokens and how many it has. */
export function listAccessTokens(
  em: EntityManager,
  organizationId: string,
  { sorting, page }: ListQuery<object, AccessTokenSortField>,
) {
  return findPage(em, OrganizationAccessToken, {
    where: [{ organization: organizationId }],
    sorting,
    sortKeys: accessTokenSortColumns,
    page,
  });
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

/** Deletes the tokens `where` names, announcing each: every process stops taking them at once. */
async function revokeTokens(em: EntityManager, where: FilterQuery<OrganizationAccessToken>) {
  const tokens = await em.find(OrganizationAccessToken, where, { fields: ['tokenHash'] });
  if (tokens.length === 0) return;
  await em.nativeDelete(OrganizationAccessToken, { id: tokens.map(({ id }) => id) });
  for (const { tokenHash } of tokens) await announceChange(em, 'accessToken', tokenHash);
}

/**
 * Revokes the tokens `userId` created in `organizationId`, or in every organization when none is
 * named: for a member who is removed, leaves or stops being an owner or admin, and for a user
 * who is deleted or banned. Run it in the transaction that makes that change. The user's
 * membership rows are locked first, so a token being created meanwhile is revoked here too, or
 * refused (requireWriterMembership).
 */
export async function revokeTokensOfCreator(
  em: EntityManager,
  userId: string,
  organizationId?: string,
): Promise<void> {
  await (organizationId
    ? em.execute('select 1 from members where user_id = ? and organization_id = ? for update', [
        userId,
        organizationId,
      ])
    : em.execute('select 1 from members where user_id = ? for update', [userId]));
  await revokeTokens(em, {
    createdBy: userId,
    ...(organizationId ? { organization: organizationId } : {}),
  });
}

/**
 * Revokes every token of an organization that is being deleted (the rows would cascade, but no
 * process would hear of it). Its membership rows are locked first, as in revokeTokensOfCreator,
 * after its own row: the order in which member removals and role changes lock them.
 */
export async function revokeOrganizationTokens(em: EntityManager, organizationId: string) {
  await lockRow(em, 'organizations', organizationId);
  await em.execute('select 1 from members where organization_id = ? for update', [organizationId]);
  await revokeTokens(em, { organization: organizationId });
}
