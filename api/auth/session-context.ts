import type { Context } from 'koa';
import type { Session, User } from '../../db/entities/index.ts';
import type { Orm } from '../../db/orm.ts';
import { cookieNames, readCookie, verifySignedCookie } from './cookies.ts';
import { authError, EmptyAnswer } from './errors.ts';
import { findActiveSession } from './sessions.ts';
import type { AuthSettings } from './settings.ts';

/** The signed-in caller of an /api/auth route. */
export interface SignedIn {
  token: string;
  session: Session;
  user: User;
}

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

/** The caller's session, or null; like Better Auth, reading it slides an aging session forward. */
export async function signedInOrNull(
  ctx: Context,
  orm: Orm,
  settings: AuthSettings,
): Promise<SignedIn | null> {
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
  if (!signedIn) throw new EmptyAnswer(401);
  return signedIn;
}

/** For sensitive calls: the session must have been created or refreshed within `freshAge`. */
export async function requireFreshSession(
  ctx: Context,
  orm: Orm,
  settings: AuthSettings,
): Promise<SignedIn> {
  const signedIn = await requireSignedIn(ctx, orm, settings);
  const { freshAgeSeconds } = settings.session;
  const lastActive = (signedIn.session.updatedAt ?? signedIn.session.createdAt).getTime();
  if (freshAgeSeconds > 0 && Date.now() - lastActive >= freshAgeSeconds * 1000) {
    throw authError(403, 'SESSION_IS_NOT_FRESH');
  }
  return signedIn;
}
