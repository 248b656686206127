import Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { authError } from '../../accounts/errors.ts';
import { isFreshSession, type SignedIn } from '../../accounts/sessions.ts';
import type { AuthSettings } from '../../accounts/settings.ts';
import { deleteUser, deleteUserWithToken, requirePassword } from '../../accounts/users.ts';
import type { AppDependencies } from '../dependencies.ts';
import { parseBody, parseQuery } from '../validation.ts';
import { accountEmailRoutes } from './account-email-routes.ts';
import { accountPasswordRoutes } from './account-password-routes.ts';
import { checkCallbackURL, redirect } from './account-redirects.ts';
import { authMails } from './auth-mail.ts';
import { clearSessionCookies } from './cookies.ts';
import { requireSignedIn, signedInOrNull } from './session-context.ts';

export const deleteUserBody = z.object({
  callbackURL: z.string().optional(),
  password: z.string().optional(),
  token: z.string().optional(),
});

export const deleteCallbackQuery = z.object({
  token: z.string(),
  callbackURL: z.string().optional(),
});

const userDeleted = { success: true, message: 'User deleted' };

/**
 * The account itself: its email address, its password and deleting it. Deleting follows
 * Better Auth's `deleteUser` options as TOLLGATE_DELETE_USER_VERIFICATION says: with `mail`
 * (its `sendDeleteAccountVerification` set) the user asks (with their password when they give
 * it), a mail carries a token, and the token deletes; with `none` the request deletes at once.
 */
export function accountRoutes(dependencies: AppDependencies, settings: AuthSettings): Router {
  const { orm } = dependencies;
  const mails = authMails(dependencies);
  const router = new Router();

  /** Deletes the signed-in user with their own deletion token, and their cookies go. */
  async function deleteWithToken(ctx: Context, { user }: SignedIn, token: string) {
    await deleteUserWithToken(orm.em, user.id, token);
    clearSessionCookies(ctx, settings);
  }

  router.post('/delete-user', async (ctx) => {
    const body = parseBody(ctx, deleteUserBody);
    const signedIn = await requireSignedIn(ctx, orm, settings);
    if (body.password) await requirePassword(orm.em, signedIn.user.id, body.password);
    if (body.token) {
      await deleteWithToken(ctx, signedIn, body.token);
      ctx.body = userDeleted;
      return;
    }
    if (settings.deleteUserVerification === 'mail') {
      await mails.confirmAccountDeletion(signedIn.user, body.callbackURL);
      ctx.body = { success: true, message: 'Verification email sent' };
      return;
    }
    // No mail to confirm with: the password, or else a recent sign-in, stands for the owner.
    if (!body.password && !isFreshSession(signedIn.session, settings)) {
      throw authError('invalid', 'SESSION_EXPIRED');
    }
    await deleteUser(orm.em, signedIn.user.id);
    clearSessionCookies(ctx, settings);
    ctx.body = userDeleted;
  });

  // The mailed link: it deletes only with the owner signed in, in the browser that follows it.
  router.get('/delete-user/callback', async (ctx) => {
    const { token, callbackURL } = parseQuery(ctx, deleteCallbackQuery);
    checkCallbackURL(callbackURL, settings.trustedOrigins);
    const signedIn = await signedInOrNull(ctx, orm, settings);
    if (!signedIn) throw authError('not_found', 'FAILED_TO_GET_USER_INFO');
    await deleteWithToken(ctx, signedIn, token);
    if (callbackURL) return redirect(ctx, callbackURL);
    ctx.body = userDeleted;
  });

  for (const routes of [
    accountEmailRoutes(dependencies, settings),
    accountPasswordRoutes(dependencies, settings),
  ]) {
    router.use(routes.routes(), routes.allowedMethods({ throw: true }));
  }
  return router;
}
