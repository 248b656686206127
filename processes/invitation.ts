import { defineUpdate } from '@temporalio/workflow';
import type {
  InvitationAnswer,
  InvitationAnswerResult,
  InvitationRenewal,
} from '../accounts/organization/invitation-answers.ts';

/** The input of the invitation workflow (`invitation:<id>`, workflows/invitation.ts). */
export interface InvitationInput {
  invitationId: string;
  /** ISO instant; the invitation row holds the same one, which the API checks. */
  expiresAt: string;
  /** The reminder goes out this long before expiry; none when the lifetime is shorter. */
  remindBeforeSeconds: number;
  /** Where the invitee accepts: the link in the invitation and reminder mails. */
  acceptUrl: string;
}

export type InvitationOutcome = 'accepted' | 'rejected' | 'canceled' | 'expired' | 'gone';

/**
 * Accept, reject or cancel. The handler applies the answer through an activity (one database
 * transaction) and returns what it did, so the caller's answer, the row and the end of this
 * workflow's wait all follow from the same change.
 */
export const answerInvitation = defineUpdate<InvitationAnswerResult, [InvitationAnswer]>(
  'answerInvitation',
);

/**
 * invite-member with `resend`: the new expiry is written, then this run hands over to a fresh
 * one (continue-as-new), which mails the invitation again and times the new expiry.
 */
export const resendInvitation = defineUpdate<InvitationRenewal, [{ expiresAt: string }]>(
  'resendInvitation',
);

/** The failure type of an update refused because the invitation is settled or expiring. */
export const invitationSettled = 'InvitationSettled';
