import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { invitationJson, memberJson } from '../accounts/organization/context.ts';
import { requireRoomForMember } from '../accounts/organization/limits.ts';
import { AppError } from '../core/errors.ts';
import { Invitation, Member, TeamMember, User } from '../db/entities/index.ts';
import type { Orm } from '../db/orm.ts';
import * as templates from '../integrations/mail/templates.ts';
import type { EmailMessage } from './mail/index.ts';

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

export type InvitationMailKind = 'invitation' | 'reminder';

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

/**
 * The activities of the invitation workflow. Each is safe to retry: the changes are
 * conditional on the invitation still being pending, and the mails carry stable ids.
 */
export function createInvitationActivities(orm: Orm) {
  return {
    /** The invitation (or reminder) mail to the invitee; null once it is no longer pending. */
    async invitationMail({
      invitationId,
      kind,
      acceptUrl,
      mailId,
    }: {
      invitationId: string;
      kind: InvitationMailKind;
      acceptUrl: string;
      mailId: string;
    }): Promise<EmailMessage | null> {
      const invitation = await orm.em
        .fork()
        .findOne(
          Invitation,
          { id: invitationId, status: 'pending', expiresAt: { $gt: new Date() } },
          { populate: ['organization', 'inviter'] },
        );
      if (!invitation) return null;
      const template = kind === 'invitation' ? templates.invitation : templates.invitationReminder;
      const content = template({
        organizationName: invitation.organization.name,
        inviterEmail: invitation.inviter.email,
        role: invitation.role,
        expiresAt: invitation.expiresAt,
        url: acceptUrl,
      });
      return { id: mailId, to: invitation.email, ...content };
    },

    /** Accept, reject or cancel (see applyInvitationAnswer). */
    answerInvitation({
      invitationId,
      ...answer
    }: InvitationAnswer & { invitationId: string }): Promise<InvitationAnswerResult> {
      return applyInvitationAnswer(orm, invitationId, answer);
    },

    /** Moves the expiry of a pending, unexpired invitation (invite-member with resend). */
    async renewInvitation({
      invitationId,
      expiresAt,
    }: {
      invitationId: string;
      expiresAt: string;
    }): Promise<InvitationRenewal> {
      const em = orm.em.fork();
      const renewed = await em.nativeUpdate(
        Invitation,
        { id: invitationId, status: 'pending', expiresAt: { $gt: new Date() } },
        { expiresAt: new Date(expiresAt) },
      );
      if (!renewed) return { applied: false };
      const invitation = await em.findOneOrFail(Invitation, { id: invitationId });
      return { applied: true, invitation: invitationJson(invitation) };
    },

    /**
     * Marks the invitation expired, if it is still pending with the expiry `expiresAt` the
     * timer was set for (not answered, not renewed meanwhile), and answers the mail telling its
     * inviter; null otherwise. The expiry is brought forward to now if the timer fired a little
     * before this database's clock got there, so the API refuses answers from now on.
     */
    async expireInvitation({
      invitationId,
      expiresAt,
      mailId,
    }: {
      invitationId: string;
      expiresAt: string;
      mailId: string;
    }): Promise<EmailMessage | null> {
      return orm.em.fork().transactional(async (em) => {
        // Locked: an answer committing meanwhile is waited for, and then seen.
        const invitation = await em.findOne(
          Invitation,
          { id: invitationId, status: 'pending', expiresAt: { $lte: new Date(expiresAt) } },
          { lockMode: LockMode.PESSIMISTIC_WRITE },
        );
        if (!invitation) return null;
        const now = new Date();
        if (invitation.expiresAt > now) invitation.expiresAt = now;
        await em.flush();
        const { organization, inviter } = await em.populate(invitation, [
          'organization',
          'inviter',
        ]);
        const content = templates.invitationExpired({
          organizationName: organization.name,
          inviteeEmail: invitation.email,
        });
        return { id: mailId, to: inviter.email, ...content };
      });
    },
  };
}

export type InvitationActivities = ReturnType<typeof createInvitationActivities>;
