import Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { signIn, signUp, userWithPassword } from '../../accounts/email-password.ts';
import { authError } from '../../accounts/errors.ts';
import { deleteSessionByToken, signedInUserJson } from '../../accounts/sessions.ts';
import type { AuthSettings } from '../../accounts/settings.ts';
import type { AppDependencies } from '../dependencies.ts';
import { parseBody } from '../validation.ts';
import { authMails } from './auth-mail.ts';
import { clearSessionCookies, setSessionCookies } from './cookies.ts';
import { presentedSessionToken } from './session-context.ts';
import { signInThrottle } from './sign-in-throttle.ts';

const isEmail = (value: unknown): value is string => z.email().max(255).safeParse(value).success;

export const signUpBody = z.object({
  name: z.string().max(255),
  email: z.unknown(),
  password: z.string(),
  image: z.string().nullish(),
  callbackURL: z.string().optional(),
  rememberMe: z.boolean().optional(),
});

export const signInBody = z.object({
  email: z.string(),
  password: z.string(),
  callbackURL: z.string().optional(),
  rememberMe: z.boolean().optional(),
});

const requestOrigin = (ctx: Context) => ({
  ipAddress: ctx.ip || null,
  userAgent: ctx.get('user-agent') || null,
});

/** Sign-up, sign-in, sign-out and session reads with an email and password. */
export function emailPasswordRoutes(dependencies: AppDependencies, settings: AuthSettings): Router {
  const { orm } = dependencies;
  const mails = authMails(dependencies);
  const throttle = signInThrottle(dependencies, settings.signInThrottle);
  const router = new Router();

  router.post('/sign-up/email', async (ctx) => {
    const body = parseBody(ctx, signUpBody);
    if (!isEmail(body.email)) throw authError('invalid', 'INVALID_EMAIL');
    const signInNow = !settings.requireEmailVerification;
    const rememberMe = body.rememberMe ?? true;
    const created = await signUp(
      orm.em,
      settings,
      { email: body.email, name: body.name, password: body.password, image: body.image },
      signInNow ? { rememberMe, ...requestOrigin(ctx) } : null,
    );
    if (created.session) {
      setSessionCookies(ctx, settings, created.session.token, {
        rememberMe,
        maxAgeSeconds: created.session.maxAgeSeconds,
      });
    }
    // Signed in only once verified: the link to verify goes out now.
    if (!signInNow) await mails.verifyEmail(created.user, body.callbackURL);
    ctx.body = { token: created.session?.token ?? null, user: signedInUserJson(created.user) };
  });

  router.post('/sign-in/email', async (ctx) => {
    const body = parseBody(ctx, signInBody);
    if (!isEmail(body.email)) throw authError('invalid', 'INVALID_EMAIL');
    const attempt = await throttle.admit(ctx, body.email);
    if (!attempt) return;
    const user = await userWithPassword(orm.em, body.email, body.password);
    if (!user) {
      await attempt.failed();
      throw authError('unauthenticated', 'INVALID_EMAIL_OR_PASSWORD');
    }
    await attempt.succeeded();
    if (settings.requireEmailVerification && !user.emailVerified) {
      // The first link may be lost or expired: each refused sign-in mails a fresh one.
      await mails.verifyEmail(user, body.callbackURL);
      throw authError('forbidden', 'EMAIL_NOT_VERIFIED');
    }
    const rememberMe = body.rememberMe ?? true;
    const created = await signIn(orm.em, settings, user, { rememberMe, ...requestOrigin(ctx) });
    setSessionCookies(ctx, settings, created.token, {
      rememberMe,
      maxAgeSeconds: created.maxAgeSeconds,
    });
    ctx.body = {
      redirect: Boolean(body.callbackURL),
      token: created.token,
      ...(body.callbackURL ? { url: body.callbackURL } : {}),
      user: signedInUserJson(user),
    };
  });

  router.post('/sign-out', async (ctx) => {
    const token = presentedSessionToken(ctx, settings);
    if (!token) throw authError('invalid', 'FAILED_TO_GET_SESSION');
    await deleteSessionByToken(orm.em, token);
    clearSessionCookies(ctx, settings);
    ctx.body = { success: true };
  });

  return router;
}
