import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { revokeTokensOfCreator } from '../../commerce/access-tokens/service.ts';
import { Member, Organization, Session, Team, TeamMember, User } from '../../db/entities/index.ts';
import { isUuid } from '../../db/ids.ts';
import { creatorRole, isCommerceWriter } from '../../domain/organization-permissions.ts';
import { splitRoles } from '../../domain/permissions.ts';
import { authError } from '../errors.ts';
import type { AuthSettings } from '../settings.ts';
import { organizationError } from './errors.ts';
import { lockRow, requireRoomForMember } from './limits.ts';
import { assignableRole, mayDo } from './roles.ts';
import { removeFromOrganizationTeams } from './teams.ts';

// Ids are UUIDs here; anything else names nothing (and must not reach PostgreSQL's uuid columns).

/** `userId`'s membership of `organizationId`, with its user and organization loaded; or null. */
export function findMember(
  em: EntityManager,
  userId: string,
  organizationId: string,
): Promise<Member | null> {
  if (!isUuid(userId) || !isUuid(organizationId)) return Promise.resolve(null);
  return em.findOne(
    Member,
    { user: userId, organization: organizationId },
    { populate: ['user', 'organization'] },
  );
}

export const isOwner = (role: string) => splitRoles(role).includes(creatorRole);

/**
 * Sessions that pointed at an organization (or one of its teams) stop pointing there: for all
 * of `userId`'s sessions, or for everyone's when the organization itself goes.
 */
export async function clearActiveOrganization(
  em: EntityManager,
  organizationId: string,
  userId?: string,
): Promise<void> {
  const whose = userId ? { user: userId } : {};
  const teams = await em.find(Team, { organization: organizationId }, { fields: ['id'] });
  await em.nativeUpdate(
    Session,
    { ...whose, activeOrganizationId: organizationId },
    { activeOrganizationId: null },
  );
  await em.nativeUpdate(
    Session,
    { ...whose, activeTeamId: { $in: teams.map(({ id }) => id) } },
    { activeTeamId: null },
  );
}

/** Locks the organization's row, then counts its owners: two owners leaving at once see each other. */
async function countOwnersLocked(em: EntityManager, organizationId: string): Promise<number> {
  await lockRow(em, 'organizations', organizationId);
  const members = await em.find(
    Member,
    { organization: organizationId },
    { fields: ['role'], refresh: true },
  );
  return members.filter((member) => isOwner(member.role)).length;
}

export interface NewMember {
  userId: string;
  organizationId: string;
  role: string | string[];
  /** A team of the organization to put the new member in as well. */
  teamId?: string;
}

/**
 * Adds a user to an organization: Better Auth's server-only add-member (over HTTP that path is
 * not routed). Runs in its own transaction, or a savepoint of the caller's.
 */
export async function addMember(
  em: EntityManager,
  settings: AuthSettings,
  input: NewMember,
): Promise<Member> {
  try {
    return await em.transactional(async (tx) => {
      const user = isUuid(input.userId) ? await tx.findOne(User, input.userId) : null;
      if (!user) throw authError('invalid', 'USER_NOT_FOUND');
      const organization = isUuid(input.organizationId)
        ? await tx.findOne(Organization, input.organizationId)
        : null;
      if (!organization) throw organizationError('invalid', 'ORGANIZATION_NOT_FOUND');
      const role = await assignableRole(tx, organization.id, input.role);
      if (await findMember(tx, user.id, organization.id)) {
        throw organizationError('invalid', 'USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION');
      }
      const team =
        input.teamId && isUuid(input.teamId)
          ? await tx.findOne(Team, { id: input.teamId, organization })
          : null;
      if (input.teamId && !team) throw organizationError('invalid', 'TEAM_NOT_FOUND');
      await requireRoomForMember(tx, settings.organizations, organization.id);
      const member = tx.create(Member, { organization, user, role });
      if (team) tx.create(TeamMember, { team, user });
      return member;
    });
  } catch (error) {
    // A concurrent add of the same user got there first: the unique index decides.
    if (error instanceof UniqueConstraintViolationException) {
      throw organizationError('invalid', 'USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION');
    }
    throw error;
  }
}

/** The member to act on, by id or by their user's email, within `organizationId` only. */
async function findMemberByIdOrEmail(
  em: EntityManager,
  memberIdOrEmail: string,
  organizationId: string,
): Promise<Member | null> {
  if (!memberIdOrEmail.includes('@')) {
    if (!isUuid(memberIdOrEmail)) return null;
    return em.findOne(
      Member,
      { id: memberIdOrEmail, organization: organizationId },
      { populate: ['user', 'organization'] },
    );
  }
  const user = await em.findOne(User, { email: memberIdOrEmail.toLowerCase() });
  return user ? findMember(em, user.id, organizationId) : null;
}

/**
 * The member goes, with the access tokens they created, their places in the organization's
 * teams and their sessions' pointers.
 */
async function removeMembership(em: EntityManager, member: Member): Promise<void> {
  const organizationId = member.organization.id;
  await revokeTokensOfCreator(em, member.user.id, organizationId);
  await removeFromOrganizationTeams(em, organizationId, member.user.id);
  await clearActiveOrganization(em, organizationId, member.user.id);
  em.remove(member);
}

/**
 * remove-member: `callerId` removes a member of `organizationId`, named by id or email. Only an
 * owner removes an owner, and never the last one.
 */
export function removeMember(
  em: EntityManager,
  callerId: string,
  organizationId: string,
  memberIdOrEmail: string,
): Promise<Member> {
  return em.transactional(async (tx) => {
    const member = await findMember(tx, callerId, organizationId);
    if (!member) throw organizationError('invalid', 'MEMBER_NOT_FOUND');
    const target = await findMemberByIdOrEmail(tx, memberIdOrEmail, organizationId);
    if (!target) throw organizationError('invalid', 'MEMBER_NOT_FOUND');
    if (isOwner(target.role)) {
      // Only an owner removes an owner, and never the last one.
      const owners = await countOwnersLocked(tx, organizationId);
      if (!isOwner(member.role) || owners <= 1) {
        throw organizationError('invalid', 'YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER');
      }
    }
    if (!(await mayDo(tx, member, { member: ['delete'] }))) {
      throw organizationError('unauthenticated', 'YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER');
    }
    await removeMembership(tx, target);
    return target;
  });
}

/**
 * update-member-role: `callerId` gives `memberId` `newRole`, one or several roles, each
 * predefined or the organization's own.
 */
export function updateMemberRole(
  em: EntityManager,
  callerId: string,
  organizationId: string,
  memberId: string,
  newRole: string | string[],
): Promise<Member> {
  return em.transactional(async (tx) => {
    const role = await assignableRole(tx, organizationId, newRole);
    const member = await findMember(tx, callerId, organizationId);
    if (!member) throw organizationError('invalid', 'MEMBER_NOT_FOUND');
    const target =
      member.id === memberId
        ? member
        : isUuid(memberId)
          ? await tx.findOne(Member, memberId)
          : null;
    if (!target) throw organizationError('invalid', 'MEMBER_NOT_FOUND');
    const callerIsOwner = isOwner(member.role);
    // A member of another organization, an owner, or the owner role: only an owner may.
    if (
      target.organization.id !== organizationId ||
      (!callerIsOwner && (isOwner(target.role) || isOwner(role)))
    ) {
      throw organizationError('forbidden', 'YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER');
    }
    if (callerIsOwner && target === member && !isOwner(role)) {
      if ((await countOwnersLocked(tx, organizationId)) <= 1) {
        throw organizationError('invalid', 'YOU_CANNOT_LEAVE_THE_ORGANIZATION_WITHOUT_AN_OWNER');
      }
    }
    // Owners may always change roles (Better Auth's allowCreatorAllPermissions here).
    if (!callerIsOwner && !(await mayDo(tx, member, { member: ['update'] }))) {
      throw organizationError('forbidden', 'YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER');
    }
    // Tokens are for owners and admins: a member who is neither keeps none.
    if (!isCommerceWriter(role)) {
      await revokeTokensOfCreator(tx, target.user.id, organizationId);
    }
    target.role = role;
    return target;
  });
}

/** leave: the user's membership goes, unless they are the organization's only owner. */
export function leaveOrganization(
  em: EntityManager,
  userId: string,
  organizationId: string,
): Promise<Member> {
  return em.transactional(async (tx) => {
    const member = await findMember(tx, userId, organizationId);
    if (!member) throw organizationError('invalid', 'MEMBER_NOT_FOUND');
    if (isOwner(member.role) && (await countOwnersLocked(tx, organizationId)) <= 1) {
      throw organizationError('invalid', 'YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER');
    }
    await removeMembership(tx, member);
    return member;
  });
}
