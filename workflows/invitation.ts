import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';
import type { InvitationActivities, InvitationMailKind } from '../activities/invitations.ts';
import type { MailActivities } from '../activities/mail/index.ts';
import {
  answerInvitation,
  type InvitationInput,
  type InvitationOutcome,
  invitationSettled,
  resendInvitation,
} from '../processes/invitation.ts';
import { callerWaitingOptions, mailActivityOptions, retryUntilDone } from './activity-options.ts';

// Mails and expiry are retried until the database is back; an answer, which a caller waits
// for, fails after a few attempts.
const invitations = proxyActivities<InvitationActivities>({
  startToCloseTimeout: '30 seconds',
  retry: retryUntilDone,
});
const answers = proxyActivities<InvitationActivities>(callerWaitingOptions);

const mail = proxyActivities<MailActivities>(mailActivityOptions);

const outcomeOf = { accept: 'accepted', reject: 'rejected', cancel: 'canceled' } as const;

/**
 * The life of one invitation (`invitation:<id>`): the mail to the invitee, a reminder before
 * expiry, then an answer or expiry; on expiry the invitation is marked expired and its inviter
 * told. The invitation row is the API's view; every change to it after creation happens here.
 */
export async function invitation(input: InvitationInput): Promise<InvitationOutcome> {
  const { invitationId, acceptUrl } = input;
  const expiresAt = Date.parse(input.expiresAt);
  let outcome: InvitationOutcome | undefined;
  let renewedExpiry: string | undefined;
  let expiring = false;
  /** The row is gone, or stopped being pending before a mail (answered, organization deleted). */
  let gone = false;
  const settled = () => outcome !== undefined || renewedExpiry !== undefined || gone;

  // Updates that arrive once the answer is known, or once expiry began, are refused before
  // they reach the history; the database decides between those already running.
  const refuseWhenSettled = (..._request: unknown[]) => {
    if (settled() || expiring) {
      throw ApplicationFailure.nonRetryable(
        'The invitation is no longer pending',
        invitationSettled,
      );
    }
  };

  setHandler(
    answerInvitation,
    async (answer) => {
      const result = await answers.answerInvitation({ ...answer, invitationId });
      if (result.applied) outcome ??= outcomeOf[answer.action];
      return result;
    },
    { validator: refuseWhenSettled },
  );

  setHandler(
    resendInvitation,
    async ({ expiresAt: newExpiry }) => {
      const renewal = await answers.renewInvitation({ invitationId, expiresAt: newExpiry });
      if (renewal.applied) renewedExpiry = newExpiry;
      return renewal;
    },
    { validator: refuseWhenSettled },
  );

  /** Mails the invitee unless the invitation stopped being pending; false when it had. */
  async function mailInvitee(kind: InvitationMailKind): Promise<boolean> {
    // One mail id per kind and expiry: a retried send keeps its Message-ID, a resend gets a new one.
    const mailId = `invitation:${invitationId}:${kind}:${input.expiresAt}`;
    const message = await invitations.invitationMail({ invitationId, kind, acceptUrl, mailId });
    // An answer that came in while the mail was being written makes it pointless.
    if (message && !settled()) await mail.sendEmail(message);
    return message !== null;
  }

  /** Waits until `instant` unless the invitation is settled first; true when the time came. */
  const reached = async (instant: number) =>
    !(await condition(settled, Math.max(instant - Date.now(), 1)));

  if (!(await mailInvitee('invitation'))) gone = true;

  const remindAt = expiresAt - input.remindBeforeSeconds * 1000;
  if (!settled() && input.remindBeforeSeconds > 0 && remindAt > Date.now()) {
    if ((await reached(remindAt)) && !(await mailInvitee('reminder'))) gone = true;
  }

  if (!settled() && (await reached(expiresAt))) {
    expiring = true;
    const notice = await invitations.expireInvitation({
      invitationId,
      expiresAt: input.expiresAt,
      mailId: `invitation:${invitationId}:expired`,
    });
    if (notice) {
      await mail.sendEmail(notice);
      outcome ??= 'expired';
    }
  }

  // An answer or resend whose activity was already running finishes before the run ends.
  await condition(allHandlersFinished);
  if (renewedExpiry && outcome === undefined) {
    return continueAsNew<typeof invitation>({ ...input, expiresAt: renewedExpiry });
  }
  return outcome ?? 'gone';
}
