import { LockMode } from '@mikro-orm/core';
import { invitationJson } from '../accounts/organization/context.ts';
import {
  applyInvitationAnswer,
  type InvitationAnswer,
  type InvitationAnswerResult,
  type InvitationRenewal,
} from '../accounts/organization/invitation-answers.ts';
import { Invitation } from '../db/entities/index.ts';
import type { Orm } from '../db/orm.ts';
import * as templates from '../integrations/mail/templates.ts';
import type { EmailMessage } from './mail/index.ts';

export type InvitationMailKind = 'invitation' | 'reminder';

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
