import type { Context } from 'koa';
import { verifyApiKey } from '../../accounts/api-keys.ts';
import { authError, EmptyAnswer } from '../../accounts/errors.ts';
import {
  findActiveSession,
  isBanned,
  isFreshSession,
  type SignedIn,
  sessionJson,
  userJson,
} from '../../accounts/sessions.ts';
import type { AuthSettings } from '../../accounts/settings.ts';
import { Session, User } from '../../db/entities/index.ts';
import type { Orm } from '../../db/orm.ts';
import { writeCookieCache } from './cookie-cache.ts';
import { cookieNames, readCookie, setSessionCookies, verifySignedCookie } from './cookies.ts';

/** The session token a request presents: the signed cookie, or a bearer token. */
export function presentedSessionToken(ctx: Context, settings: AuthSettings): string | null {
  const bearer = /^Bearer (.+)$/i.exec(ctx.get('authorization'))?.[1];
  if (bearer) return bearer.includes('.') ? verifySignedCookie(bearer, settings.secret) : bearer;
  const cookie = readCookie(ctx, cookieNames(settings).sessionToken);
  return cookie ? verifySignedCookie(cookie, settings.secret) : null;
}

/** True when the request carries the cookie of a session signed in without "remember me". */
export function isShortLivedSession(ctx: Context, settings: AuthSettings): boolean {
  const cookie = readCookie(ctx, cookieNames(settings).dontRemember);
  return cookie !== undefined && verifySignedCookie(cookie, settings.secret) === 'true';
}

/** The x-api-key header, which Better Auth reads as a session (its enableSessionForAPIKeys). */
export function presentedApiKey(ctx: Context): string | null {
  return ctx.get('x-api-key') || null;
}

// A request spends one use of its API key, however often its route reads the caller.
const apiKeySessions = new WeakMap<Context, Promise<SignedIn | null>>();

/**
 * The session an API key stands for, built as Better Auth builds it: not stored, named by the
 * key's id, fresh, ending when the key does (or after a session's lifetime). Presenting the key
 * spends one use of it; a refused key answers its refusal (an ApiKeyRefusal) rather than "no
 * session". A banned user's key gives no session, as a banned user's cookie gives none.
 */
function signedInWithApiKey(
  ctx: Context,
  orm: Orm,
  settings: AuthSettings,
  key: string,
): Promise<SignedIn | null> {
  const known = apiKeySessions.get(ctx);
  if (known) return known;
  const signedIn = (async () => {
    const apiKey = await verifyApiKey(orm.em, key);
    const user = await orm.em.findOneOrFail(User, { id: apiKey.user.id });
    if (isBanned(user)) return null;
    const now = new Date();
    const session = Object.assign(new Session(), {
      id: apiKey.id,
      user,
      expiresAt:
        apiKey.expiresAt ?? new Date(now.getTime() + settings.session.expiresInSeconds * 1000),
      ipAddress: ctx.ip || null,
      userAgent: ctx.get('user-agent') || null,
      impersonatedBy: null,
      createdAt: now,
      updatedAt: now,
    });
    return { token: key, session, user };
  })();
  apiKeySessions.set(ctx, signedIn);
  return signedIn;
}

/**
 * The caller's session, or null: the x-api-key header's if there is one (it wins over a cookie,
 * as in Better Auth), else the cookie's or bearer token's, which reading slides forward.
 */
export async function signedInOrNull(
  ctx: Context,
  orm: Orm,
  settings: AuthSettings,
): Promise<SignedIn | null> {
  const apiKey = presentedApiKey(ctx);
  if (apiKey) return signedInWithApiKey(ctx, orm, settings, apiKey);
  const token = presentedSessionToken(ctx, settings);
  if (!token) return null;
  const refresh = !isShortLivedSession(ctx, settings);
  const active = await findActiveSession(orm.em, settings, token, { refresh });
  return active ? { token, session: active.session, user: active.user } : null;
}

/** The caller's session; without one the route answers 401 with an empty body, as Better Auth does. */
export async function requireSignedIn(
  ctx: Context,
  orm: Orm,
  settings: AuthSettings,
): Promise<SignedIn> {
  const signedIn = await signedInOrNull(ctx, orm, settings);
  if (!signedIn) throw new EmptyAnswer('unauthenticated');
  return signedIn;
}

/** For sensitive calls: the session must have been signed in within `freshAge` (isFreshSession). */
export async function requireFreshSession(
  ctx: Context,
  orm: Orm,
  settings: AuthSettings,
): Promise<SignedIn> {
  const signedIn = await requireSignedIn(ctx, orm, settings);
  if (!isFreshSession(signedIn.session, settings))
    throw authError('forbidden', 'SESSION_IS_NOT_FRESH');
  return signedIn;
}

/**
 * After a call changed the session or its user, Better Auth sends the session cookie again and,
 * with the cookie cache on, a fresh cache (else the old values would show for minutes).
 */
export function reissueSessionCookies(ctx: Context, settings: AuthSettings, signedIn: SignedIn) {
  // A caller signed in with an API key has no session cookie (and its key must not become one).
  if (presentedApiKey(ctx)) return;
  const { token, session, user } = signedIn;
  setSessionCookies(ctx, settings, token, {
    rememberMe: !isShortLivedSession(ctx, settings),
    maxAgeSeconds: settings.session.expiresInSeconds,
  });
  if (settings.cookieCache.enabled) {
    writeCookieCache(ctx, settings, { session: sessionJson(session, token), user: userJson(user) });
  }
}
