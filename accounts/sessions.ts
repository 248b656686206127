import type { EntityManager } from '@mikro-orm/postgresql';
import { Session, User } from '../db/entities/index.ts';
import { executePrepared } from '../db/sql.ts';
import { authError, EmptyAnswer } from './errors.ts';
import { generateSessionToken, sessionIdFromToken } from './session-token.ts';
import type { AuthSettings } from './settings.ts';

/** What the JSON builders read: an entity, or a row read without the ORM (get-session). */
type UserFields = Pick<
  User,
  | 'id'
  | 'email'
  | 'name'
  | 'image'
  | 'emailVerified'
  | 'createdAt'
  | 'updatedAt'
  | 'role'
  | 'banned'
  | 'banReason'
  | 'banExpires'
>;
type SessionFields = Pick<
  Session,
  | 'id'
  | 'expiresAt'
  | 'ipAddress'
  | 'userAgent'
  | 'createdAt'
  | 'updatedAt'
  | 'impersonatedBy'
  | 'activeOrganizationId'
  | 'activeTeamId'
> & { user: { id: string } };

/**
 * How Better Auth's client sees a user row: camelCase, dates as ISO strings, with the fields
 * its admin plugin adds (get-session, the admin routes).
 */
export function userJson(user: UserFields) {
  return {
    ...signedInUserJson(user),
    role: user.role,
    banned: user.banned,
    banReason: user.banReason ?? null,
    banExpires: user.banExpires ?? null,
  };
}

/** The narrower user that sign-up and sign-in answer with: Better Auth lists these seven fields. */
export function signedInUserJson(user: UserFields) {
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

export function sessionJson(session: SessionFields, token: string) {
  return {
    id: session.id,
    token,
    userId: session.user.id,
    expiresAt: session.expiresAt,
    ipAddress: session.ipAddress ?? null,
    userAgent: session.userAgent ?? null,
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
    impersonatedBy: session.impersonatedBy ?? null,
    activeOrganizationId: session.activeOrganizationId ?? null,
    activeTeamId: session.activeTeamId ?? null,
  };
}

/**
 * The session an x-api-key header stands for, with only the keys Better Auth's api-key plugin
 * gives it: none of the impersonation, active organization or active team.
 */
export function apiKeySessionJson(session: SessionFields, key: string) {
  const { id, token, userId, expiresAt, ipAddress, userAgent, createdAt, updatedAt } = sessionJson(
    session,
    key,
  );
  return { id, token, userId, expiresAt, ipAddress, userAgent, createdAt, updatedAt };
}

/** The signed-in caller: the token presented, its session and user. */
export interface SignedIn {
  token: string;
  session: Session;
  user: User;
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
 * The rules every session read applies. An expired session is gone; a banned user's sessions
 * are all gone; a session last extended more than `updateAge` ago slides forward to a full
 * lifetime, unless `refresh` is false or it is an impersonation (which keeps its hour).
 */
function judgeSession(
  session: Pick<SessionFields, 'expiresAt' | 'impersonatedBy'>,
  user: Pick<UserFields, 'banned' | 'banExpires'>,
  settings: AuthSettings,
  refresh: boolean,
  now: number,
): 'expired' | 'banned' | { extendTo: Date | null } {
  if (session.expiresAt.getTime() <= now) return 'expired';
  if (isBanned(user, now)) return 'banned';
  const { expiresInSeconds, updateAgeSeconds } = settings.session;
  const lastExtendedAt = session.expiresAt.getTime() - expiresInSeconds * 1000;
  const due = refresh && !session.impersonatedBy && lastExtendedAt + updateAgeSeconds * 1000 <= now;
  return { extendTo: due ? new Date(now + expiresInSeconds * 1000) : null };
}

/** The live session behind a token, as entities for routes that change them; or null. */
export async function findActiveSession(
  em: EntityManager,
  settings: AuthSettings,
  token: string,
  { refresh }: { refresh: boolean },
): Promise<ActiveSession | null> {
  const id = sessionIdFromToken(token);
  const session = await em.findOne(Session, { id }, { populate: ['user'] });
  if (!session) return null;
  const verdict = judgeSession(session, session.user, settings, refresh, Date.now());
  if (verdict === 'expired') {
    await em.nativeDelete(Session, { id });
    return null;
  }
  if (verdict === 'banned') {
    await em.nativeDelete(Session, { user: session.user });
    return null;
  }
  if (verdict.extendTo) {
    session.expiresAt = verdict.extendTo;
    await em.flush();
  }
  return { session, user: session.user, refreshed: verdict.extendTo !== null };
}

// get-session is the hottest route: one join read without the ORM's hydration, which costs
// several times the query itself, prepared once per connection (bench/auth.ts).
const sessionViewQuery = `
  select s.id, s.user_id, s.expires_at, s.ip_address, s.user_agent, s.impersonated_by,
         s.active_organization_id, s.active_team_id, s.created_at, s.updated_at,
         u.email, u.name, u.image, u.email_verified, u.role, u.banned, u.ban_reason,
         u.ban_expires, u.created_at as user_created_at, u.updated_at as user_updated_at
  from sessions s join users u on u.id = s.user_id
  where s.id = $1`;

/** Timestamps arrive as PostgreSQL's ISO text: the ORM's driver leaves them unparsed. */
interface SessionViewRow {
  id: string;
  user_id: string;
  expires_at: string;
  ip_address: string | null;
  user_agent: string | null;
  impersonated_by: string | null;
  active_organization_id: string | null;
  active_team_id: string | null;
  created_at: string;
  updated_at: string;
  email: string;
  name: string;
  image: string | null;
  email_verified: boolean;
  role: string;
  banned: boolean;
  ban_reason: string | null;
  ban_expires: string | null;
  user_created_at: string;
  user_updated_at: string;
}

/** The same rules as findActiveSession, answering plain session and user fields for JSON. */
export async function readSessionView(
  em: EntityManager,
  settings: AuthSettings,
  token: string,
  { refresh }: { refresh: boolean },
): Promise<{ session: SessionFields; user: UserFields; refreshed: boolean } | null> {
  const connection = em.getConnection();
  const id = sessionIdFromToken(token);
  const [row] = await executePrepared<SessionViewRow>(em, 'session-view', sessionViewQuery, [id]);
  if (!row) return null;
  const session: SessionFields = {
    id: row.id,
    user: { id: row.user_id },
    expiresAt: new Date(row.expires_at),
    ipAddress: row.ip_address,
    userAgent: row.user_agent,
    impersonatedBy: row.impersonated_by,
    activeOrganizationId: row.active_organization_id,
    activeTeamId: row.active_team_id,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
  const user: UserFields = {
    id: row.user_id,
    email: row.email,
    name: row.name,
    image: row.image,
    emailVerified: row.email_verified,
    role: row.role,
    banned: row.banned,
    banReason: row.ban_reason,
    banExpires: row.ban_expires === null ? null : new Date(row.ban_expires),
    createdAt: new Date(row.user_created_at),
    updatedAt: new Date(row.user_updated_at),
  };
  const now = Date.now();
  const verdict = judgeSession(session, user, settings, refresh, now);
  if (verdict === 'expired') {
    await connection.execute('delete from sessions where id = ?', [id], 'run');
    return null;
  }
  if (verdict === 'banned') {
    await connection.execute('delete from sessions where user_id = ?', [row.user_id], 'run');
    return null;
  }
  if (verdict.extendTo) {
    session.expiresAt = verdict.extendTo;
    session.updatedAt = new Date(now);
    await connection.execute(
      'update sessions set expires_at = ?, updated_at = ? where id = ?',
      [session.expiresAt, session.updatedAt, id],
      'run',
    );
  }
  return { session, user, refreshed: verdict.extendTo !== null };
}

/**
 * Fresh enough for sensitive calls: signed in (the session created) less than `freshAge` ago.
 * Better Auth counts from the session's last update, which every refresh renews, so a session
 * kept in use stays fresh forever; here only signing in again makes it fresh.
 */
export function isFreshSession(
  session: Pick<SessionFields, 'createdAt'>,
  settings: AuthSettings,
  now = Date.now(),
): boolean {
  const { freshAgeSeconds } = settings.session;
  return freshAgeSeconds === 0 || now - session.createdAt.getTime() < freshAgeSeconds * 1000;
}

/** Banned now: banned, and either for good or until a time still ahead. */
export function isBanned(
  user: Pick<UserFields, 'banned' | 'banExpires'>,
  now = Date.now(),
): boolean {
  return user.banned && (!user.banExpires || user.banExpires.getTime() > now);
}

/** The user's live sessions, oldest first. */
export function listOwnSessions(em: EntityManager, user: User): Promise<Session[]> {
  return em.find(
    Session,
    // Impersonation sessions belong to the admin acting, not to the user: never listed.
    { user, expiresAt: { $gt: new Date() }, impersonatedBy: null },
    { orderBy: { createdAt: 'asc' } },
  );
}

/** Ends one of the user's sessions, named by its token or (as listed) by its id. */
export async function revokeOwnSession(
  em: EntityManager,
  user: User,
  tokenOrId: string,
): Promise<void> {
  const session =
    (await em.findOne(Session, { id: sessionIdFromToken(tokenOrId) })) ??
    (await em.findOne(Session, { id: tokenOrId }));
  if (!session) throw authError('invalid', 'SESSION_NOT_FOUND');
  // Another user's session answers like a missing sign-in, as Better Auth does.
  if (session.user.id !== user.id) throw new EmptyAnswer('unauthenticated');
  await em.nativeDelete(Session, { id: session.id });
}

/** Ends every session of the user, or every one but the session of token `except`. */
export async function revokeOwnSessions(
  em: EntityManager,
  user: User,
  { except }: { except?: string } = {},
): Promise<void> {
  await em.nativeDelete(
    Session,
    except ? { user, id: { $ne: sessionIdFromToken(except) } } : { user },
  );
}

export async function deleteSessionByToken(em: EntityManager, token: string): Promise<void> {
  await em.nativeDelete(Session, { id: sessionIdFromToken(token) });
}

export function findUserByEmail(em: EntityManager, email: string): Promise<User | null> {
  return em.findOne(User, { email: email.toLowerCase() });
}
