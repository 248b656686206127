import Router from '@koa/router';
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { authError } from '../../../accounts/errors.ts';
import { invitationJson } from '../../../accounts/organization/context.ts';
import {
  type OrganizationMessage,
  organizationError,
} from '../../../accounts/organization/errors.ts';
import {
  applyInvitationAnswer,
  type InvitationAction,
  type InvitationAnswerResult,
  type InvitationRefusal,
} from '../../../accounts/organization/invitation-answers.ts';
import {
  createInvitation,
  deleteInvitation,
  findInvitation,
  findPendingInvitation,
  invitationExpiry,
  invitedRole,
  listInvitations,
  listInvitationsTo,
  renewInvitation,
} from '../../../accounts/organization/invitations.ts';
import { findMember } from '../../../accounts/organization/members.ts';
import { mayDo } from '../../../accounts/organization/roles.ts';
import type { SignedIn } from '../../../accounts/sessions.ts';
import type { AuthSettings } from '../../../accounts/settings.ts';
import type { Refusal } from '../../../core/errors.ts';
import type { Invitation } from '../../../db/entities/index.ts';
import { readSignedToken, signToken } from '../../../domain/signed-tokens.ts';
import {
  answerInvitation,
  invitationSettled,
  resendInvitation,
} from '../../../processes/invitation.ts';
import { startInvitation } from '../../../processes/starters.ts';
import { workflowIds } from '../../../processes/workflow-ids.ts';
import type { AppDependencies } from '../../dependencies.ts';
import { parseBody, parseQuery } from '../../validation.ts';
import { requireSignedIn, signedInOrNull } from '../session-context.ts';
import { dropCookieCache } from './answers.ts';

export const inviteBody = z.object({
  email: z.string(),
  role: z.union([z.string(), z.array(z.string())]),
  organizationId: z.string().optional(),
  resend: z.boolean().optional(),
  // Better Auth joins several team ids into one column; here an invitation names one team.
  teamId: z.union([z.string(), z.array(z.string()).max(1, 'one team per invitation')]).optional(),
});

export const invitationIdBody = z.object({ invitationId: z.string() });
/**
 * accept and reject: Better Auth's body, and the token of the mailed link (Tollgate's addition),
 * which proves the invitee reads mail at the invited address.
 */
export const answerInvitationBody = invitationIdBody.extend({ token: z.string().optional() });
export const getInvitationQuery = z.object({ id: z.string() });
export const listInvitationsQuery = z.object({ organizationId: z.string().optional() });
export const listUserInvitationsQuery = z.object({ email: z.string().optional() });

const isEmail = (value: string) => z.email().max(255).safeParse(value).success;

/** Pending and not yet expired: the only invitations that can be answered. */
const isOpen = (invitation: Invitation) =>
  invitation.status === 'pending' && invitation.expiresAt > new Date();

/** How the API answers each reason the workflow gives for not applying an answer. */
const refusalErrors: Record<InvitationRefusal, [Refusal, OrganizationMessage]> = {
  'not-pending': ['invalid', 'INVITATION_NOT_FOUND'],
  'not-recipient': ['forbidden', 'YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION'],
  'inviter-left': ['invalid', 'INVITER_IS_NO_LONGER_A_MEMBER_OF_THE_ORGANIZATION'],
  'already-member': ['invalid', 'USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION'],
  'membership-limit': ['forbidden', 'ORGANIZATION_MEMBERSHIP_LIMIT_REACHED'],
  'team-member-limit': ['forbidden', 'TEAM_MEMBER_LIMIT_REACHED'],
  'email-unverified': [
    'forbidden',
    'EMAIL_VERIFICATION_REQUIRED_BEFORE_ACCEPTING_OR_REJECTING_INVITATION',
  ],
};

/** What the token in the invitation mail's link is signed for (domain/signed-tokens.ts). */
const invitationLinkPurpose = 'invitation link';

/**
 * Better Auth's organization plugin (1.3.34), invitations. Creating one starts its workflow
 * (`invitation:<id>`, workflows/invitation.ts), which mails, reminds and expires it; accept,
 * reject, cancel and resend are Temporal updates of that workflow, which applies them through
 * an activity and answers, so the row, the workflow and the answer cannot disagree.
 *
 * Only the owner of the invited address may answer: as Better Auth with
 * `requireEmailVerificationOnInvitation` (always on here), the invitee's email must be verified,
 * or the answer carries `token`, the signed token from the link in the invitation mail, which
 * proves the address as a verification link would (and so also verifies it). Anyone can sign up
 * with an address they do not read; neither proof is theirs to give.
 */
export function invitationRoutes(dependencies: AppDependencies, settings: AuthSettings): Router {
  const { orm, temporal, config } = dependencies;
  const router = new Router();
  const publicUrl = config.api.publicUrl.replace(/\/+$/, '');

  const workflowOf = (invitationId: string) =>
    temporal.workflow.getHandle(workflowIds.invitation(invitationId));

  function startWorkflow(invitationId: string, expiresAt: Date) {
    return startInvitation(temporal, {
      invitationId,
      expiresAt: expiresAt.toISOString(),
      remindBeforeSeconds: settings.invitations.reminderSeconds,
      acceptUrl: `${publicUrl}/accept-invitation/${invitationId}?${new URLSearchParams({
        token: signToken(settings.secret, invitationLinkPurpose, invitationId),
      })}`,
    });
  }

  /** The workflow refused the update before running it: the invitation is settled or expiring. */
  const refusedAsSettled = (error: unknown) =>
    error instanceof WorkflowUpdateFailedError &&
    error.cause instanceof ApplicationFailure &&
    error.cause.type === invitationSettled;

  /** Accept, reject or cancel through the invitation's workflow. */
  async function answer(
    invitationId: string,
    action: InvitationAction,
    signedIn: SignedIn,
    emailProven = false,
  ): Promise<InvitationAnswerResult> {
    const request = {
      action,
      userId: signedIn.user.id,
      emailProven,
      membershipLimit: settings.organizations.membershipLimit,
      maximumMembersPerTeam: settings.teams.maximumMembersPerTeam,
    };
    try {
      return await workflowOf(invitationId).executeUpdate(answerInvitation, { args: [request] });
    } catch (error) {
      if (refusedAsSettled(error)) return { applied: false, refusal: 'not-pending' };
      // No run holds the invitation any more (it expired, or an operator ended it): with no
      // workflow to keep in step, the answer is applied here under the same conditions.
      if (error instanceof WorkflowNotFoundError) {
        return applyInvitationAnswer(orm, invitationId, request);
      }
      throw error;
    }
  }

  const refusal = (result: InvitationAnswerResult, notPending: OrganizationMessage) => {
    if (result.applied) return null;
    const [kind, message] = refusalErrors[result.refusal];
    return organizationError(kind, result.refusal === 'not-pending' ? notPending : message);
  };

  /**
   * invite-member with resend: the invitation's workflow moves the expiry and mails it again.
   * Null when it could not (it expired meanwhile): a new invitation is made instead.
   */
  async function resend(invitation: Invitation) {
    const expiresAt = invitationExpiry(settings);
    try {
      const renewal = await workflowOf(invitation.id).executeUpdate(resendInvitation, {
        args: [{ expiresAt: expiresAt.toISOString() }],
      });
      return renewal.applied ? renewal.invitation : null;
    } catch (error) {
      if (refusedAsSettled(error)) return null;
      if (!(error instanceof WorkflowNotFoundError)) throw error;
      // Its run ended without settling it (an operator ended it): a new run takes it on.
      if (!(await renewInvitation(orm.em, invitation.id, expiresAt))) return null;
      await startWorkflow(invitation.id, expiresAt);
      return { ...invitationJson(invitation), expiresAt };
    }
  }

  /** The session's user must be the one invited (and the invitation still open). */
  async function invitationFor(signedIn: SignedIn, id: string, notOpen: OrganizationMessage) {
    const invitation = await findInvitation(orm.em, id);
    if (!invitation || !isOpen(invitation)) throw organizationError('invalid', notOpen);
    if (invitation.email !== signedIn.user.email.toLowerCase()) {
      throw organizationError('forbidden', 'YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION');
    }
    return invitation;
  }

  /**
   * The invitee must own the invited address: a verified email, or the mailed link's token.
   * Answers whether the token proved it (the answer then verifies the email).
   */
  function requireProvenAddress(signedIn: SignedIn, invitation: Invitation, token?: string) {
    const mailedLink =
      token !== undefined &&
      readSignedToken(settings.secret, invitationLinkPurpose, token) === invitation.id;
    if (!mailedLink && !signedIn.user.emailVerified) {
      throw organizationError(
        'forbidden',
        'EMAIL_VERIFICATION_REQUIRED_BEFORE_ACCEPTING_OR_REJECTING_INVITATION',
      );
    }
    return mailedLink;
  }

  router.post('/organization/invite-member', async (ctx) => {
    const body = parseBody(ctx, inviteBody);
    const signedIn = await requireSignedIn(ctx, orm, settings);
    const organizationId = body.organizationId || signedIn.session.activeOrganizationId;
    if (!organizationId) throw organizationError('invalid', 'ORGANIZATION_NOT_FOUND');
    const inviter = await findMember(orm.em, signedIn.user.id, organizationId);
    if (!inviter) throw organizationError('invalid', 'MEMBER_NOT_FOUND');
    if (!(await mayDo(orm.em, inviter, { invitation: ['create'] }))) {
      throw organizationError(
        'forbidden',
        'YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION',
      );
    }
    const role = await invitedRole(orm.em, inviter.organization.id, body.role, inviter.role);
    if (!isEmail(body.email)) throw authError('invalid', 'INVALID_EMAIL');
    const email = body.email.toLowerCase();
    const organization = inviter.organization;
    const pending = await findPendingInvitation(orm.em, organization, email);
    if (pending && !body.resend) {
      throw organizationError('invalid', 'USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION');
    }
    const resent = pending && (await resend(pending));
    if (resent) {
      ctx.body = resent;
      return;
    }
    const invitation = await createInvitation(orm.em, settings, {
      organization,
      email,
      role,
      teamId: Array.isArray(body.teamId) ? body.teamId[0] : body.teamId,
      inviter: signedIn.user,
    });
    try {
      await startWorkflow(invitation.id, invitation.expiresAt);
    } catch (error) {
      // Without its workflow nobody would mail, remind or expire it: no invitation then.
      await deleteInvitation(orm.em, invitation);
      throw error;
    }
    ctx.body = invitationJson(invitation);
  });

  router.get('/organization/get-invitation', async (ctx) => {
    const query = parseQuery(ctx, getInvitationQuery);
    const signedIn = await signedInOrNull(ctx, orm, settings);
    if (!signedIn) throw organizationError('unauthenticated', 'NOT_AUTHENTICATED');
    const invitation = await invitationFor(signedIn, query.id, 'INVITATION_NOT_FOUND_EXCLAIMED');
    const { organization } = invitation;
    const inviter = await findMember(orm.em, invitation.inviter.id, organization.id);
    if (!inviter)
      throw organizationError('invalid', 'INVITER_IS_NO_LONGER_A_MEMBER_OF_THE_ORGANIZATION');
    ctx.body = {
      ...invitationJson(invitation),
      organizationName: organization.name,
      organizationSlug: organization.slug,
      inviterEmail: inviter.user.email,
    };
  });

  router.get('/organization/list-invitations', async (ctx) => {
    const query = parseQuery(ctx, listInvitationsQuery);
    const signedIn = await requireSignedIn(ctx, orm, settings);
    const organizationId = query.organizationId || signedIn.session.activeOrganizationId;
    if (!organizationId) throw organizationError('invalid', 'ORGANIZATION_ID_IS_REQUIRED');
    if (!(await findMember(orm.em, signedIn.user.id, organizationId))) {
      throw organizationError('forbidden', 'YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION');
    }
    ctx.body = (await listInvitations(orm.em, organizationId)).map(invitationJson);
  });

  router.get('/organization/list-user-invitations', async (ctx) => {
    const query = parseQuery(ctx, listUserInvitationsQuery);
    const signedIn = await signedInOrNull(ctx, orm, settings);
    // Better Auth takes an email only from server-side calls; over HTTP a caller lists their own.
    if (query.email) {
      throw organizationError('invalid', 'USER_EMAIL_CANNOT_BE_PASSED_FOR_CLIENT_SIDE_API_CALLS');
    }
    if (!signedIn) {
      throw organizationError('invalid', 'MISSING_SESSION_HEADERS_OR_EMAIL_QUERY_PARAMETER');
    }
    const invitations = await listInvitationsTo(orm.em, signedIn.user.email.toLowerCase());
    ctx.body = invitations.map(invitationJson);
  });

  router.post('/organization/accept-invitation', async (ctx) => {
    const body = parseBody(ctx, answerInvitationBody);
    const signedIn = await requireSignedIn(ctx, orm, settings);
    const invitation = await invitationFor(signedIn, body.invitationId, 'INVITATION_NOT_FOUND');
    const emailProven = requireProvenAddress(signedIn, invitation, body.token);
    const result = await answer(invitation.id, 'accept', signedIn, emailProven);
    if (!result.applied) throw refusal(result, 'INVITATION_NOT_FOUND');
    // The new member works in the organization (and team) they were invited to from now on.
    signedIn.session.activeOrganizationId = invitation.organization.id;
    if (invitation.team) signedIn.session.activeTeamId = invitation.team.id;
    await orm.em.flush();
    dropCookieCache(ctx, settings);
    ctx.body = { invitation: result.invitation, member: result.member };
  });

  router.post('/organization/reject-invitation', async (ctx) => {
    const body = parseBody(ctx, answerInvitationBody);
    const signedIn = await requireSignedIn(ctx, orm, settings);
    const invitation = await invitationFor(
      signedIn,
      body.invitationId,
      'INVITATION_NOT_FOUND_EXCLAIMED',
    );
    const emailProven = requireProvenAddress(signedIn, invitation, body.token);
    const result = await answer(invitation.id, 'reject', signedIn, emailProven);
    if (!result.applied) throw refusal(result, 'INVITATION_NOT_FOUND_EXCLAIMED');
    // The email just became verified: a cached copy of the user would say otherwise.
    if (emailProven) dropCookieCache(ctx, settings);
    ctx.body = { invitation: result.invitation, member: null };
  });

  router.post('/organization/cancel-invitation', async (ctx) => {
    const body = parseBody(ctx, invitationIdBody);
    const signedIn = await requireSignedIn(ctx, orm, settings);
    const invitation = await findInvitation(orm.em, body.invitationId);
    if (!invitation) throw organizationError('invalid', 'INVITATION_NOT_FOUND');
    const member = await findMember(orm.em, signedIn.user.id, invitation.organization.id);
    if (!member) throw organizationError('invalid', 'MEMBER_NOT_FOUND');
    if (!(await mayDo(orm.em, member, { invitation: ['cancel'] }))) {
      throw organizationError('forbidden', 'YOU_ARE_NOT_ALLOWED_TO_CANCEL_THIS_INVITATION');
    }
    // Canceling twice answers the same; an accepted or rejected invitation stays as it was.
    if (invitation.status === 'canceled') {
      ctx.body = invitationJson(invitation);
      return;
    }
    const result = await answer(invitation.id, 'cancel', signedIn);
    if (!result.applied) throw refusal(result, 'INVITATION_NOT_FOUND');
    ctx.body = result.invitation;
  });

  return router;
}
