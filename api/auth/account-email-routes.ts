import Router from '@koa/router';
import { z } from 'zod';
import { type AuthMessage, authError } from '../../accounts/errors.ts';
import { findUserByEmail, signedInUserJson } from '../../accounts/sessions.ts';
import type { AuthSettings } from '../../accounts/settings.ts';
import { markEmailVerified, moveEmail } from '../../accounts/users.ts';
import { findToken } from '../../accounts/verification-tokens.ts';
import type { AppDependencies } from '../dependencies.ts';
import { parseBody, parseQuery } from '../validation.ts';
import { checkCallbackURL, redirect, withError } from './account-redirects.ts';
import { afterAnswering } from './after-answer.ts';
import { authMails, emailVerificationSubject } from './auth-mail.ts';
import { reissueSessionCookies, requireSignedIn, signedInOrNull } from './session-context.ts';

export const sendVerificationBody = z.object({
  email: z.email(),
  callbackURL: z.string().optional(),
});

export const verifyEmailQuery = z.object({
  token: z.string(),
  callbackURL: z.string().optional(),
});

export const changeEmailBody = z.object({
  newEmail: z.email().max(255),
  callbackURL: z.string().optional(),
});

type VerifyEmailFailure = 'invalid_token' | 'token_expired' | 'user_not_found' | 'unauthorized';

const verifyEmailErrors: Record<VerifyEmailFailure, AuthMessage> = {
  invalid_token: 'VERIFY_EMAIL_INVALID_TOKEN',
  token_expired: 'VERIFY_EMAIL_TOKEN_EXPIRED',
  user_not_found: 'VERIFY_EMAIL_USER_NOT_FOUND',
  unauthorized: 'VERIFY_EMAIL_UNAUTHORIZED',
};

/** The email address of an account: verifying it and moving to another. */
export function accountEmailRoutes(dependencies: AppDependencies, settings: AuthSettings): Router {
  const { orm } = dependencies;
  const mails = authMails(dependencies);
  const router = new Router();

  router.post('/send-verification-email', async (ctx) => {
    const body = parseBody(ctx, sendVerificationBody);
    const email = body.email.toLowerCase();
    const signedIn = await signedInOrNull(ctx, orm, settings);
    if (!signedIn) {
      // The same answer, as soon, whether or not the address has an account, verified or not:
      // the account is looked up and mailed only once answered.
      afterAnswering(ctx, dependencies, 'verification mail', async () => {
        const user = await findUserByEmail(orm.em, email);
        if (user && !user.emailVerified) await mails.verifyEmail(user, body.callbackURL);
      });
      ctx.body = { status: true };
      return;
    }
    if (signedIn.user.emailVerified) {
      throw authError('invalid', 'YOU_CAN_ONLY_SEND_A_VERIFICATION_EMAIL_TO_AN_UNVERIFIED_EMAIL');
    }
    if (signedIn.user.email !== email) {
      throw authError('invalid', 'YOU_CAN_ONLY_SEND_A_VERIFICATION_EMAIL_TO_YOUR_OWN_EMAIL');
    }
    await mails.verifyEmail(signedIn.user, body.callbackURL);
    ctx.body = { status: true };
  });

  router.get('/verify-email', async (ctx) => {
    const { token, callbackURL } = parseQuery(ctx, verifyEmailQuery);
    checkCallbackURL(callbackURL, settings.trustedOrigins);
    // A failure goes back to the app's page when it named one, else answers 401 with its code.
    const fail = (failure: VerifyEmailFailure) => {
      if (!callbackURL) throw authError('unauthenticated', verifyEmailErrors[failure]);
      redirect(ctx, withError(callbackURL, failure));
    };

    const found = await findToken(orm.em, 'emailVerification', token);
    if (!found) return fail('invalid_token');
    if (found.expired) return fail('token_expired');
    const subject = emailVerificationSubject.parse(JSON.parse(found.subject));
    // A token stands for one account at one address: once either is gone, so is the token.
    const user = await findUserByEmail(orm.em, subject.email);
    if (!user || user.id !== subject.userId) return fail('user_not_found');

    if (!subject.updateTo) {
      // Repeatable while the token lives, like Better Auth's signed tokens.
      await markEmailVerified(orm.em, user);
      if (callbackURL) return redirect(ctx, callbackURL);
      ctx.body = { status: true, user: null };
      return;
    }

    // Confirming a verified account's move: only its owner, signed in, may do it.
    const signedIn = await signedInOrNull(ctx, orm, settings);
    if (!signedIn || signedIn.user.id !== user.id) return fail('unauthorized');
    await moveEmail(orm.em, user, subject.updateTo);
    await mails.verifyEmail(user, callbackURL);
    reissueSessionCookies(ctx, settings, signedIn);
    if (callbackURL) return redirect(ctx, callbackURL);
    ctx.body = { status: true, user: signedInUserJson(user) };
  });

  router.post('/change-email', async (ctx) => {
    const body = parseBody(ctx, changeEmailBody);
    const signedIn = await requireSignedIn(ctx, orm, settings);
    const { user } = signedIn;
    const newEmail = body.newEmail.toLowerCase();
    if (newEmail === user.email) throw authError('invalid', 'EMAIL_IS_THE_SAME');
    if (await findUserByEmail(orm.em, newEmail))
      throw authError('invalid', 'COULDNT_UPDATE_YOUR_EMAIL');
    if (user.emailVerified) {
      // The current address confirms first (GET /verify-email), then the new one is verified.
      await mails.confirmEmailChange(user, newEmail, body.callbackURL);
    } else {
      // An address nobody has verified proves nothing to keep: it changes at once.
      await moveEmail(orm.em, user, newEmail);
      reissueSessionCookies(ctx, settings, signedIn);
      await mails.verifyEmail(user, body.callbackURL);
    }
    ctx.body = { status: true };
  });

  return router;
}
