import Router from '@koa/router';
import { z } from 'zod';
import { authError } from '../../accounts/errors.ts';
import { findUserByEmail, signedInUserJson } from '../../accounts/sessions.ts';
import type { AuthSettings } from '../../accounts/settings.ts';
import { changePassword, resetPassword } from '../../accounts/users.ts';
import { findToken } from '../../accounts/verification-tokens.ts';
import type { AppDependencies } from '../dependencies.ts';
import { parseBody, parseQuery } from '../validation.ts';
import { checkCallbackURL, redirect } from './account-redirects.ts';
import { afterAnswering } from './after-answer.ts';
import { authBaseUrl, authMails } from './auth-mail.ts';
import { setSessionCookies } from './cookies.ts';
import { isShortLivedSession, requireSignedIn } from './session-context.ts';

export const requestResetBody = z.object({
  email: z.email(),
  redirectTo: z.string().optional(),
});

export const resetLinkQuery = z.object({ callbackURL: z.string() });

export const resetPasswordBody = z.object({
  newPassword: z.string(),
  token: z.string().optional(),
});

export const resetPasswordQuery = z.object({ token: z.string().optional() });

export const changePasswordBody = z.object({
  newPassword: z.string(),
  currentPassword: z.string(),
  revokeOtherSessions: z.boolean().optional(),
});

/**
 * Better Auth's two names for asking a reset link, each with its answer to a known address:
 * request-password-reset says it with a message, forget-password (the older name) without.
 * Better Auth's forget-password adds the message for an unknown address, which tells the two
 * apart; here each route answers every address alike, so neither reveals an account.
 */
const resetRequestAnswers = {
  '/request-password-reset': {
    status: true,
    message: 'If this email exists in our system, check your email for the reset link',
  },
  '/forget-password': { status: true },
};

/** Forgotten passwords (a mailed reset link) and changing a known one. */
export function accountPasswordRoutes(
  dependencies: AppDependencies,
  settings: AuthSettings,
): Router {
  const { orm } = dependencies;
  const mails = authMails(dependencies);
  const baseUrl = authBaseUrl(dependencies.config.api.publicUrl);
  const router = new Router();

  for (const [path, answer] of Object.entries(resetRequestAnswers)) {
    router.post(path, async (ctx) => {
      const body = parseBody(ctx, requestResetBody);
      // Looked up and mailed only once answered: a known address answers as fast as any.
      afterAnswering(ctx, dependencies, 'password reset mail', async () => {
        const user = await findUserByEmail(orm.em, body.email);
        if (user) await mails.resetPassword(user, body.redirectTo);
      });
      ctx.body = answer;
    });
  }

  // The mailed link: checks the token without using it and hands it to the app's reset page.
  router.get('/reset-password/:token', async (ctx) => {
    const { callbackURL } = parseQuery(ctx, resetLinkQuery);
    const token = ctx.params.token ?? '';
    checkCallbackURL(callbackURL, settings.trustedOrigins);
    // A link mailed without redirectTo has an empty callbackURL: Better Auth sends it to /error.
    const target = new URL(callbackURL || `${baseUrl}/error`, baseUrl);
    const found = callbackURL ? await findToken(orm.em, 'passwordReset', token) : null;
    if (found && !found.expired) target.searchParams.set('token', token);
    else target.searchParams.set('error', 'INVALID_TOKEN');
    redirect(ctx, target.href);
  });

  router.post('/reset-password', async (ctx) => {
    const body = parseBody(ctx, resetPasswordBody);
    const token = body.token || parseQuery(ctx, resetPasswordQuery).token;
    if (!token) throw authError('invalid', 'INVALID_TOKEN');
    await resetPassword(orm.em, settings.password, token, body.newPassword);
    ctx.body = { status: true };
  });

  router.post('/change-password', async (ctx) => {
    const body = parseBody(ctx, changePasswordBody);
    const signedIn = await requireSignedIn(ctx, orm, settings);
    const rememberMe = !isShortLivedSession(ctx, settings);
    const newSession = await changePassword(orm.em, settings, signedIn.user.id, body, {
      rememberMe,
      ipAddress: ctx.ip || null,
      userAgent: ctx.get('user-agent') || null,
    });
    if (newSession) {
      setSessionCookies(ctx, settings, newSession.token, {
        rememberMe,
        maxAgeSeconds: newSession.maxAgeSeconds,
      });
    }
    ctx.body = { token: newSession?.token ?? null, user: signedInUserJson(signedIn.user) };
  });

  return router;
}
