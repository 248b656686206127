import type { EntityManager } from '@mikro-orm/postgresql';
import { Member } from '../../db/entities/index.ts';
import { organizationError } from './errors.ts';

/** Better Auth's organizationLimit and membershipLimit. */
export interface OrganizationLimits {
  /**
   * How many organizations a user may belong to: a number, or a hook answering it per user
   * (the server-side form of Better Auth's option); undefined means no limit.
   */
  organizationLimit: number | ((userId: string) => Promise<number>) | undefined;
  /** How many members an organization may have (Better Auth's default: 100). */
  membershipLimit: number;
}

/**
 * 403 when `userId` already belongs to as many organizations as allowed. Call it inside the
 * transaction that adds the membership: the user's row stays locked until it ends, so two
 * creations at once cannot both pass the count.
 */
export async function requireRoomForOrganization(
  em: EntityManager,
  limits: OrganizationLimits,
  userId: string,
): Promise<void> {
  const { organizationLimit } = limits;
  if (organizationLimit === undefined) return;
  await lockRow(em, 'users', userId);
  const limit =
    typeof organizationLimit === 'function' ? await organizationLimit(userId) : organizationLimit;
  if ((await em.count(Member, { user: userId })) >= limit) {
    throw organizationError('forbidden', 'YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_ORGANIZATIONS');
  }
}

/**
 * 403 when the organization already has `membershipLimit` members. Call it inside the
 * transaction that adds the member: the organization's row stays locked until it ends, so
 * concurrent additions are counted one after another.
 */
export async function requireRoomForMember(
  em: EntityManager,
  limits: OrganizationLimits,
  organizationId: string,
): Promise<void> {
  await lockRow(em, 'organizations', organizationId);
  if ((await em.count(Member, { organization: organizationId })) >= limits.membershipLimit) {
    throw organizationError('forbidden', 'ORGANIZATION_MEMBERSHIP_LIMIT_REACHED');
  }
}

/** Locks a user's or organization's row until the transaction `em` runs in ends. */
export async function lockRow(
  em: EntityManager,
  table: 'users' | 'organizations',
  id: string,
): Promise<void> {
  await em.execute(`select 1 from ${table} where id = ? for update`, [id]);
}
