import type { EntityManager } from '@mikro-orm/postgresql';
import { Session, User } from '../../db/entities/index.ts';
import { generateSessionToken, sessionIdFromToken } from './session-token.ts';
import type { AuthSettings } from './settings.ts';

/** How Better Auth's client sees a user and a session: camelCase, dates as ISO strings. */
export function userJson(user: User) {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    image: user.image ?? null,
    emailVerified: user.emailVerified,
    createdAt: user.createdAt,
    updatedAt: user.updatedAt,
  };
}

export function sessionJson(session: Session, token: string) {
  return {
    id: session.id,
    token,
    userId: session.user.id,
    expiresAt: session.expiresAt,
    ipAddress: session.ipAddress ?? null,
    userAgent: session.userAgent ?? null,
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
  };
}

export interface NewSession {
  token: string;
  session: Session;
  /** What the session cookie's Max-Age should be when the user asked to be remembered. */
  maxAgeSeconds: number;
}

/** Creates a session for `user` in the caller's unit of work (flushed by the caller). */
export function createSession(
  em: EntityManager,
  settings: AuthSettings,
  user: User,
  request: { rememberMe: boolean; ipAddress: string | null; userAgent: string | null },
): NewSession {
  const token = generateSessionToken();
  const lifetime = request.rememberMe
    ? settings.session.expiresInSeconds
    : settings.session.shortLivedSeconds;
  const session = em.create(Session, {
    id: sessionIdFromToken(token),
    user,
    expiresAt: new Date(Date.now() + lifetime * 1000),
    ipAddress: request.ipAddress,
    userAgent: request.userAgent,
  });
  return { token, session, maxAgeSeconds: lifetime };
}

export interface ActiveSession {
  session: Session;
  user: User;
  /** True when this read extended the session (the cookie should be re-issued). */
  refreshed: boolean;
}

/**
 * The live session behind a token, or null. An expired session is deleted on sight. A session
 * last extended more than `updateAge` ago slides forward to a full lifetime, unless `refresh`
 * is false.
 */
export async function findActiveSession(
  em: EntityManager,
  settings: AuthSettings,
  token: string,
  { refresh }: { refresh: boolean },
): Promise<ActiveSession | null> {
  const id = sessionIdFromToken(token);
  const session = await em.findOne(Session, { id }, { populate: ['user'] });
  if (!session) return null;
  const now = Date.now();
  if (session.expiresAt.getTime() <= now) {
    await em.nativeDelete(Session, { id });
    return null;
  }
  if (isBanned(session.user, now)) {
    // A ban ends every session of the user, including ones created before it.
    await em.nativeDelete(Session, { user: session.user });
    return null;
  }
  const { expiresInSeconds, updateAgeSeconds } = settings.session;
  const lastExtendedAt = session.expiresAt.getTime() - expiresInSeconds * 1000;
  const due = refresh && lastExtendedAt + updateAgeSeconds * 1000 <= now;
  if (due) {
    session.expiresAt = new Date(now + expiresInSeconds * 1000);
    await em.flush();
  }
  return { session, user: session.user, refreshed: due };
}

/** Banned now: banned, and either for good or until a time still ahead. */
export function isBanned(user: User, now = Date.now()): boolean {
  return user.banned && (!user.banExpires || user.banExpires.getTime() > now);
}

export async function deleteSessionByToken(em: EntityManager, token: string): Promise<void> {
  await em.nativeDelete(Session, { id: sessionIdFromToken(token) });
}

export function findUserByEmail(em: EntityManager, email: string): Promise<User | null> {
  return em.findOne(User, { email: email.toLowerCase() });
}
