import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../core/errors.ts';
import { Invitation, Member, TeamMember, User } from '../../db/entities/index.ts';
import type { Orm } from '../../db/orm.ts';
import { invitationJson, memberJson } from './context.ts';
import { requireRoomForMember } from './limits.ts';

export type InvitationAction = 'accept' | 'reject' | 'cancel';

export interface InvitationAnswer {
  action: InvitationAction;
  /** Who answers: the invitee (accept, reject) or the member who cancels. */
  userId: string;
  /**
   * The invitee presented the token of the mailed link, which proves the invited address (and
   * verifies it). Without it, accept and reject need the invitee's email verified already.
   * Absent in answers recorded before it existed: those were not proven.
   */
  emailProven?: boolean;
  /** The organization's member limit, and a team's (unset: none), when the answer is given. */
  membershipLimit: number;
  maximumMembersPerTeam?: number | undefined;
}

/**
 * Why an answer was not applied: the invitation is no longer pending (or expired), the user is
 * not its recipient, the recipient has not proven the address, its inviter left the
 * organization, the user is already a member, or the organization or the invitation's team is
 * full.
 */
export type InvitationRefusal =
  | 'not-pending'
  | 'not-recipient'
  | 'email-unverified'
  | 'inviter-left'
  | 'already-member'
  | 'membership-limit'
  | 'team-member-limit';

// Dates travel as ISO strings through Temporal's JSON payloads, as they do on the wire.
export type InvitationAnswerResult =
  | {
      applied: true;
      invitation: ReturnType<typeof invitationJson>;
      member: ReturnType<typeof memberJson> | null;
    }
  | { applied: false; refusal: InvitationRefusal };

export type InvitationRenewal =
  | { applied: true; invitation: ReturnType<typeof invitationJson> }
  | { applied: false };

const statusAfter = { accept: 'accepted', reject: 'rejected', cancel: 'canceled' } as const;

const refused = (refusal: InvitationRefusal): InvitationAnswerResult => ({
  applied: false,
  refusal,
});

/**
 * Applies an answer to a pending invitation in one transaction: the status, and for an accept
 * the member (with the invitation's role) and its team membership. The invitation row is
 * locked first, so of two answers at once the second sees the first's result. The workflow's
 * activity; the API calls it directly only for an invitation whose workflow no longer runs.
 */
export async function applyInvitationAnswer(
  orm: Orm,
  invitationId: string,
  answer: InvitationAnswer,
): Promise<InvitationAnswerResult> {
  try {
    return await orm.em.fork().transactional((em) => decideAnswer(em, invitationId, answer));
  } catch (error) {
    // The user joined by another way (add-member) between the check and the insert.
    if (error instanceof UniqueConstraintViolationException) return refused('already-member');
    throw error;
  }
}

async function decideAnswer(
  em: EntityManager,
  invitationId: string,
  { action, userId, emailProven, membershipLimit, maximumMembersPerTeam }: InvitationAnswer,
): Promise<InvitationAnswerResult> {
  const invitation = await em.findOne(
    Invitation,
    { id: invitationId },
    { lockMode: LockMode.PESSIMISTIC_WRITE },
  );
  if (!invitation) return refused('not-pending');
  const organization = invitation.organization.id;
  const status = statusAfter[action];
  if (invitation.status === status) {
    // A retry whose first attempt committed but whose answer was lost finds its work done.
    if (action !== 'accept')
      return { applied: true, invitation: invitationJson(invitation), member: null };
    const member = await em.findOne(Member, { organization, user: userId });
    if (member)
      return { applied: true, invitation: invitationJson(invitation), member: memberJson(member) };
  }
  if (invitation.status !== 'pending') return refused('not-pending');
  let invitee: User | null = null;
  if (action !== 'cancel') {
    if (invitation.expiresAt <= new Date()) return refused('not-pending');
    invitee = await em.findOne(User, { id: userId });
    if (!invitee || invitee.email !== invitation.email) return refused('not-recipient');
    // Signing up with an address proves nothing: its owner answers (see invitation-routes.ts).
    if (!invitee.emailVerified && !emailProven) return refused('email-unverified');
  }
  let member: Member | null = null;
  if (action === 'accept') {
    if (!(await em.count(Member, { organization, user: invitation.inviter }))) {
      return refused('inviter-left');
    }
    if (await em.count(Member, { organization, user: userId })) return refused('already-member');
    try {
      await requireRoomForMember(
        em,
        { organizationLimit: undefined, membershipLimit },
        organization,
      );
    } catch (error) {
      if (error instanceof AppError) return refused('membership-limit');
      throw error;
    }
    const team = invitation.team?.id;
    const newTeamMember =
      team && !(await em.count(TeamMember, { team, user: userId })) ? team : null;
    if (newTeamMember && maximumMembersPerTeam !== undefined) {
      if ((await em.count(TeamMember, { team: newTeamMember })) >= maximumMembersPerTeam) {
        return refused('team-member-limit');
      }
    }
    member = em.create(Member, { organization, user: userId, role: invitation.role });
    if (newTeamMember) em.create(TeamMember, { team: newTeamMember, user: userId });
  }
  // The mailed link proved the address, as a verification link would.
  if (invitee && emailProven) invitee.emailVerified = true;
  invitation.status = status;
  await em.flush();
  return {
    applied: true,
    invitation: invitationJson(invitation),
    member: member && memberJson(member),
  };
}
