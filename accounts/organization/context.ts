import type { EntityManager } from '@mikro-orm/postgresql';
import type { Invitation, Member, Organization, Team } from '../../db/entities/index.ts';
import { Member as MemberEntity } from '../../db/entities/index.ts';
import { isUuid } from '../../db/ids.ts';
import type { PermissionRequest } from '../../domain/permissions.ts';
import type { SignedIn } from '../sessions.ts';
import { type OrganizationMessage, organizationError } from './errors.ts';
import { mayDo } from './roles.ts';

/** The organization a call is about, and the caller's membership of it. */
export interface Membership {
  organization: Organization;
  member: Member;
}

/**
 * The caller's membership of `organizationId`, or of their active organization when the call
 * names none. Every organization route goes through here (or `requirePermission`), so a member
 * of one organization can never read or change another.
 */
export async function requireMembership(
  em: EntityManager,
  signedIn: SignedIn,
  organizationId: string | null | undefined,
): Promise<Membership> {
  const id = organizationId ?? signedIn.session.activeOrganizationId;
  if (!id) throw organizationError('invalid', 'NO_ACTIVE_ORGANIZATION');
  if (!isUuid(id)) throw organizationError('forbidden', 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION');
  const member = await em.findOne(
    MemberEntity,
    { organization: id, user: signedIn.user },
    { populate: ['organization'] },
  );
  if (!member) throw organizationError('forbidden', 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION');
  return { organization: member.organization, member };
}

/** As `requireMembership`, then the member's role must grant `request`, else 403 `refusal`. */
export async function requirePermission(
  em: EntityManager,
  signedIn: SignedIn,
  organizationId: string | null | undefined,
  request: PermissionRequest,
  refusal: OrganizationMessage,
): Promise<Membership> {
  const membership = await requireMembership(em, signedIn, organizationId);
  if (!(await mayDo(em, membership.member, request))) {
    throw organizationError('forbidden', refusal);
  }
  return membership;
}

/** How Better Auth's organization client sees an organization: metadata as an object. */
export function organizationJson(organization: Organization) {
  return {
    id: organization.id,
    name: organization.name,
    slug: organization.slug,
    logo: organization.logo ?? null,
    metadata: organization.metadata
      ? (JSON.parse(organization.metadata) as Record<string, unknown>)
      : null,
    createdAt: organization.createdAt,
  };
}

/** A member as Better Auth answers it: the ids of its organization and user, not the rows. */
export function memberJson(member: Member) {
  return {
    id: member.id,
    organizationId: member.organization.id,
    userId: member.user.id,
    role: member.role,
    createdAt: member.createdAt,
  };
}

/** A member with the four user fields Better Auth adds (list-members, get-full-organization…). */
export function memberWithUserJson(member: Member) {
  const { user } = member;
  return {
    ...memberJson(member),
    user: { id: user.id, name: user.name, email: user.email, image: user.image ?? null },
  };
}

export function teamJson(team: Team) {
  return {
    id: team.id,
    name: team.name,
    organizationId: team.organization.id,
    createdAt: team.createdAt,
    updatedAt: team.updatedAt ?? null,
  };
}

/** An invitation as Better Auth 1.3.34 answers it (its schema has no createdAt). */
export function invitationJson(invitation: Invitation) {
  return {
    id: invitation.id,
    organizationId: invitation.organization.id,
    email: invitation.email,
    role: invitation.role,
    teamId: invitation.team?.id ?? null,
    status: invitation.status,
    expiresAt: invitation.expiresAt,
    inviterId: invitation.inviter.id,
  };
}
