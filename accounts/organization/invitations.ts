import type { EntityManager } from '@mikro-orm/postgresql';
import {
  Invitation,
  Member,
  type Organization,
  Team,
  TeamMember,
  type User,
} from '../../db/entities/index.ts';
import { isUuid } from '../../db/ids.ts';
import { creatorRole } from '../../domain/organization-permissions.ts';
import { splitRoles } from '../../domain/permissions.ts';
import type { AuthSettings } from '../settings.ts';
import { organizationError } from './errors.ts';
import { isOwner } from './members.ts';
import { assignableRole } from './roles.ts';

// Invitations' rules: who may be invited with which role, how many may be open, and the rows.
// Their workflow (mail, reminder, expiry, the answers) is processes/invitation.ts's.

/** When an invitation made (or renewed) now expires: Better Auth's invitationExpiresIn. */
export const invitationExpiry = (settings: AuthSettings) =>
  new Date(Date.now() + settings.invitations.lifetimeSeconds * 1000);

/**
 * The role or roles an invitation grants, stored comma-separated; each must be predefined or
 * the organization's own, and only an owner makes owners (every other role a member who may
 * invite can grant).
 */
export async function invitedRole(
  em: EntityManager,
  organizationId: string,
  role: string | string[],
  inviterRole: string,
): Promise<string> {
  const joined = await assignableRole(em, organizationId, role);
  if (splitRoles(joined).includes(creatorRole) && !isOwner(inviterRole)) {
    throw organizationError('forbidden', 'YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE');
  }
  return joined;
}

const openIn = (organization: Organization) =>
  ({ organization, status: 'pending', expiresAt: { $gt: new Date() } }) as const;

/**
 * The open invitation of `email` to the organization, or null; someone already a member is
 * refused.
 */
export async function findPendingInvitation(
  em: EntityManager,
  organization: Organization,
  email: string,
): Promise<Invitation | null> {
  if (await em.count(Member, { organization, user: { email } })) {
    throw organizationError('invalid', 'USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION');
  }
  return em.findOne(
    Invitation,
    { ...openIn(organization), email },
    { orderBy: { createdAt: 'asc' } },
  );
}

export interface NewInvitation {
  organization: Organization;
  email: string;
  role: string;
  teamId: string | undefined;
  inviter: User;
}

/**
 * A new invitation (flushed), within Better Auth's invitationLimit and, with a team, its
 * maximumMembersPerTeam.
 */
export async function createInvitation(
  em: EntityManager,
  settings: AuthSettings,
  input: NewInvitation,
): Promise<Invitation> {
  const { organization, teamId } = input;
  if ((await em.count(Invitation, openIn(organization))) >= settings.invitations.limit) {
    throw organizationError('forbidden', 'INVITATION_LIMIT_REACHED');
  }
  const team =
    teamId && isUuid(teamId) ? await em.findOne(Team, { id: teamId, organization }) : null;
  if (teamId && !team) throw organizationError('invalid', 'TEAM_NOT_FOUND');
  const { maximumMembersPerTeam } = settings.teams;
  if (team && maximumMembersPerTeam !== undefined) {
    if ((await em.count(TeamMember, { team })) >= maximumMembersPerTeam) {
      throw organizationError('forbidden', 'TEAM_MEMBER_LIMIT_REACHED');
    }
  }
  const invitation = em.create(Invitation, {
    organization,
    email: input.email,
    role: input.role,
    team,
    inviter: input.inviter,
    expiresAt: invitationExpiry(settings),
  });
  await em.flush();
  return invitation;
}

export async function deleteInvitation(em: EntityManager, invitation: Invitation) {
  await em.remove(invitation).flush();
}

/** Moves a still open invitation's expiry; false when it is no longer open. */
export async function renewInvitation(
  em: EntityManager,
  invitationId: string,
  expiresAt: Date,
): Promise<boolean> {
  const renewed = await em.nativeUpdate(
    Invitation,
    { id: invitationId, status: 'pending', expiresAt: { $gt: new Date() } },
    { expiresAt },
  );
  return renewed > 0;
}

export function findInvitation(em: EntityManager, id: string): Promise<Invitation | null> {
  return isUuid(id)
    ? em.findOne(Invitation, { id }, { populate: ['organization', 'inviter'] })
    : Promise.resolve(null);
}

export function listInvitations(em: EntityManager, organizationId: string) {
  return em.find(
    Invitation,
    { organization: organizationId },
    { orderBy: { createdAt: 'asc', id: 'asc' } },
  );
}

/** The invitations to `email`, whatever their state. */
export function listInvitationsTo(em: EntityManager, email: string) {
  return em.find(Invitation, { email }, { orderBy: { createdAt: 'asc', id: 'asc' } });
}
