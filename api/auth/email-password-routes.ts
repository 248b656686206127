import Router from '@koa/router';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Context } from 'koa';
import { z } from 'zod';
import { authError, bannedUserError } from '../../accounts/errors.ts';
import { hashPassword, verifyPassword } from '../../accounts/passwords.ts';
import {
  createSession,
  deleteSessionByToken,
  findUserByEmail,
  isBanned,
  signedInUserJson,
} from '../../accounts/sessions.ts';
import type { AuthSettings } from '../../accounts/settings.ts';
import { checkPasswordLength, createUser, storePassword } from '../../accounts/users.ts';
import { Account } from '../../db/entities/index.ts';
import type { AppDependencies } from '../dependencies.ts';
import { parseBody } from '../validation.ts';
import { authMails } from './auth-mail.ts';
import { clearSessionCookies, setSessionCookies } from './cookies.ts';
import { presentedSessionToken } from './session-context.ts';
import { signInThrottle } from './sign-in-throttle.ts';

const isEmail = (value: unknown): value is string => z.email().max(255).safeParse(value).success;

const signUpBody = z.object({
  name: z.string().max(255),
  email: z.unknown(),
  password: z.string(),
  image: z.string().nullish(),
  callbackURL: z.string().optional(),
  rememberMe: z.boolean().optional(),
});

const signInBody = z.object({
  email: z.string(),
  password: z.string(),
  callbackURL: z.string().optional(),
  rememberMe: z.boolean().optional(),
});

/** Compared against when the account does not exist, so that answer takes as long as a real one. */
const decoyPasswordHash = hashPassword('decoy password for accounts that do not exist');

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
    checkPasswordLength(body.password, settings.password);
    const email = body.email.toLowerCase();
    if (await findUserByEmail(orm.em, email)) {
      throw authError('unprocessable', 'USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL');
    }
    const passwordHash = await hashPassword(body.password);
    const signInNow = !settings.requireEmailVerification;
    const rememberMe = body.rememberMe ?? true;
    try {
      // The user, the password and the first session exist together or not at all.
      const created = await orm.em.transactional(async (em) => {
        const user = createUser(em, { email, name: body.name, image: body.image ?? null });
        await storePassword(em, user, passwordHash);
        const session = signInNow
          ? createSession(em, settings, user, { rememberMe, ...requestOrigin(ctx) })
          : undefined;
        return { user, session };
      });
      if (created.session) {
        setSessionCookies(ctx, settings, created.session.token, {
          rememberMe,
          maxAgeSeconds: created.session.maxAgeSeconds,
        });
      }
      // Signed in only once verified: the link to verify goes out now.
      if (!signInNow) await mails.verifyEmail(created.user, body.callbackURL);
      ctx.body = { token: created.session?.token ?? null, user: signedInUserJson(created.user) };
    } catch (error) {
      // Two sign-ups with one email raced past the check above: the unique index decides.
      if (error instanceof UniqueConstraintViolationException) {
        throw authError('unprocessable', 'USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL');
      }
      throw error;
    }
  });

  router.post('/sign-in/email', async (ctx) => {
    const body = parseBody(ctx, signInBody);
    if (!isEmail(body.email)) throw authError('invalid', 'INVALID_EMAIL');
    const attempt = await throttle.admit(ctx, body.email);
    if (!attempt) return;
    const user = await findUserByEmail(orm.em, body.email);
    const credential = user
      ? await orm.em.findOne(Account, { user, providerId: 'credential' })
      : null;
    const passwordMatches = await verifyPassword(
      body.password,
      credential?.password ?? (await decoyPasswordHash),
    );
    // One answer for an unknown email, an account without a password and a wrong password.
    if (!user || !credential?.password || !passwordMatches) {
      await attempt.failed();
      throw authError('unauthenticated', 'INVALID_EMAIL_OR_PASSWORD');
    }
    await attempt.succeeded();
    if (settings.requireEmailVerification && !user.emailVerified) {
      // The first link may be lost or expired: each refused sign-in mails a fresh one.
      await mails.verifyEmail(user, body.callbackURL);
      throw authError('forbidden', 'EMAIL_NOT_VERIFIED');
    }
    if (isBanned(user)) throw bannedUserError();
    // A ban whose time has run out is lifted at the next sign-in, as Better Auth does.
    if (user.banned) Object.assign(user, { banned: false, banReason: null, banExpires: null });
    const rememberMe = body.rememberMe ?? true;
    const created = createSession(orm.em, settings, user, { rememberMe, ...requestOrigin(ctx) });
    await orm.em.flush();
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
