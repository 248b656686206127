import Router from '@koa/router';
import { z } from 'zod';
import { authError } from '../../accounts/errors.ts';
import { sessionIdFromToken } from '../../accounts/session-token.ts';
import {
  apiKeySessionJson,
  listOwnSessions,
  readSessionView,
  revokeOwnSession,
  revokeOwnSessions,
  sessionJson,
  userJson,
} from '../../accounts/sessions.ts';
import type { AuthSettings } from '../../accounts/settings.ts';
import type { AppDependencies } from '../dependencies.ts';
import { parseBody, parseQuery } from '../validation.ts';
import { readCookieCache, writeCookieCache } from './cookie-cache.ts';
import { clearSessionCookies, cookieNames, setCookie, setSessionCookies } from './cookies.ts';
import {
  isShortLivedSession,
  presentedApiKey,
  presentedSessionToken,
  reissueSessionCookies,
  requireSignedIn,
  signedInOrNull,
} from './session-context.ts';

export const revokeSessionBody = z.object({ token: z.string().min(1) });

// Better Auth reads these flags by truthiness: any non-empty value, even "false", switches on.
export const getSessionQuery = z.object({
  disableCookieCache: z.string().optional(),
  disableRefresh: z.string().optional(),
});

// Better Auth takes any value for name and image; we keep to what a user row can hold.
export const updateUserBody = z
  .object({
    name: z.string().min(1).max(255).optional(),
    image: z.string().max(2048).nullable().optional(),
    email: z.unknown().optional(),
    role: z.unknown().optional(),
  })
  .passthrough();

/**
 * Reading the session, and the signed-in user's own sessions and profile. Only token hashes are stored, so a listed
 * session other than the caller's carries its id (the hash) where Better Auth shows the raw
 * token; revoke-session accepts either, and neither can be used to sign in.
 */
export function sessionRoutes({ orm }: AppDependencies, settings: AuthSettings): Router {
  const router = new Router();

  router.get('/get-session', async (ctx) => {
    const query = parseQuery(ctx, getSessionQuery);
    const token = presentedSessionToken(ctx, settings);
    const answerSignedOut = () => {
      ctx.type = 'json';
      ctx.body = 'null';
    };
    // Better Auth's enableSessionForAPIKeys: an x-api-key header stands for its owner's session.
    if (presentedApiKey(ctx)) {
      const signedIn = await signedInOrNull(ctx, orm, settings);
      if (!signedIn) return answerSignedOut();
      const { session, token: key, user } = signedIn;
      ctx.body = { session: apiKeySessionJson(session, key), user: userJson(user) };
      return;
    }
    const useCache = token && settings.cookieCache.enabled && !query.disableCookieCache;
    if (useCache) {
      const cached = readCookieCache(ctx, settings);
      if (cached === 'forged') {
        setCookie(ctx, settings, cookieNames(settings).sessionData, '', 0);
        return answerSignedOut();
      }
      if (cached !== 'absent' && cached.session.token === token) {
        ctx.body = cached;
        return;
      }
    }
    // A session signed in without "remember me" never slides forward, as in Better Auth.
    const rememberMe = !isShortLivedSession(ctx, settings);
    const refresh = rememberMe && !query.disableRefresh;
    const active = token ? await readSessionView(orm.em, settings, token, { refresh }) : null;
    if (!token || !active) {
      if (token) clearSessionCookies(ctx, settings);
      return answerSignedOut();
    }
    if (active.refreshed) {
      const remaining = (active.session.expiresAt.getTime() - Date.now()) / 1000;
      setSessionCookies(ctx, settings, token, { rememberMe, maxAgeSeconds: remaining });
    }
    const answer = { session: sessionJson(active.session, token), user: userJson(active.user) };
    if (settings.cookieCache.enabled) writeCookieCache(ctx, settings, answer);
    ctx.body = answer;
  });

  router.get('/list-sessions', async (ctx) => {
    const { user, token } = await requireSignedIn(ctx, orm, settings);
    const sessions = await listOwnSessions(orm.em, user);
    const currentId = sessionIdFromToken(token);
    ctx.body = sessions.map((session) =>
      sessionJson(session, session.id === currentId ? token : session.id),
    );
  });

  router.post('/revoke-session', async (ctx) => {
    const { token } = parseBody(ctx, revokeSessionBody);
    const { user } = await requireSignedIn(ctx, orm, settings);
    await revokeOwnSession(orm.em, user, token);
    ctx.body = { status: true };
  });

  router.post('/revoke-sessions', async (ctx) => {
    const { user } = await requireSignedIn(ctx, orm, settings);
    await revokeOwnSessions(orm.em, user);
    ctx.body = { status: true };
  });

  router.post('/revoke-other-sessions', async (ctx) => {
    const { user, token } = await requireSignedIn(ctx, orm, settings);
    await revokeOwnSessions(orm.em, user, { except: token });
    ctx.body = { status: true };
  });

  router.post('/update-user', async (ctx) => {
    const body = parseBody(ctx, updateUserBody);
    const signedIn = await requireSignedIn(ctx, orm, settings);
    const { user } = signedIn;
    if (body.email) throw authError('invalid', 'EMAIL_CAN_NOT_BE_UPDATED');
    if (body.role) throw authError('invalid', 'ROLE_IS_NOT_ALLOWED_TO_BE_SET');
    if (body.name === undefined && body.image === undefined) {
      throw authError('invalid', 'NO_FIELDS_TO_UPDATE');
    }
    if (body.name !== undefined) user.name = body.name;
    if (body.image !== undefined) user.image = body.image;
    await orm.em.flush();
    reissueSessionCookies(ctx, settings, signedIn);
    ctx.body = { status: true };
  });

  return router;
}
