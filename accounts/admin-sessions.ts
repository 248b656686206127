import type { EntityManager } from '@mikro-orm/postgresql';
import { Session } from '../db/entities/index.ts';
import { isUserId, requireUser } from './admin-users.ts';
import { authError, bannedUserError } from './errors.ts';
import { sessionIdFromToken } from './session-token.ts';
import {
  type ActiveSession,
  createSession,
  findActiveSession,
  isBanned,
  type NewSession,
} from './sessions.ts';
import type { AuthSettings } from './settings.ts';

// What Better Auth's admin plugin does to other users' sessions, impersonation included.

/** The user's live sessions, oldest first; an id that is not a UUID names none. */
export function listUserSessions(em: EntityManager, userId: string): Promise<Session[]> {
  if (!isUserId(userId)) return Promise.resolve([]);
  return em.find(
    Session,
    { user: userId.toLowerCase(), expiresAt: { $gt: new Date() } },
    { orderBy: { createdAt: 'asc' } },
  );
}

/** Ends one session, named by its token or (as list-user-sessions shows it) by its id. */
export async function revokeUserSession(em: EntityManager, tokenOrId: string): Promise<void> {
  await em.nativeDelete(Session, { id: [sessionIdFromToken(tokenOrId), tokenOrId] });
}

export async function revokeUserSessions(em: EntityManager, userId: string): Promise<void> {
  if (isUserId(userId)) await em.nativeDelete(Session, { user: userId.toLowerCase() });
}

/**
 * impersonate-user: a session of `targetId`'s, marked as the admin's doing, that lasts the
 * impersonation lifetime and never slides. Better Auth refuses every new session of a banned
 * user, this one included.
 */
export async function impersonate(
  em: EntityManager,
  settings: AuthSettings,
  adminId: string,
  targetId: string,
  origin: { ipAddress: string | null; userAgent: string | null },
): Promise<NewSession> {
  const target = await requireUser(em, targetId);
  if (isBanned(target)) throw bannedUserError();
  const created = createSession(em, settings, target, { rememberMe: false, ...origin });
  created.session.expiresAt = new Date(Date.now() + settings.impersonationSessionSeconds * 1000);
  created.session.impersonatedBy = adminId;
  await em.flush();
  return created;
}

/**
 * stop-impersonating: the impersonation session ends and the admin's own session, behind
 * `adminToken`, is answered. It must be the session of the admin who impersonated.
 */
export async function stopImpersonating(
  em: EntityManager,
  settings: AuthSettings,
  session: Session,
  adminToken: string,
): Promise<ActiveSession> {
  const admin = adminToken
    ? await findActiveSession(em, settings, adminToken, { refresh: false })
    : null;
  // Better Auth answers 500 here: the browser lost the cookie it was given.
  if (!admin || admin.user.id !== session.impersonatedBy) {
    throw authError('internal', 'FAILED_TO_FIND_ADMIN_SESSION');
  }
  await em.nativeDelete(Session, { id: session.id });
  return admin;
}
