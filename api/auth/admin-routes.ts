import Router from '@koa/router';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import type { Context } from 'koa';
import { z } from 'zod';
import {
  defaultRole,
  hasAdminPermission,
  joinRoles,
  type PermissionRequest,
  rolesExist,
} from '../../accounts/admin-permissions.ts';
import { type AuthMessage, authError, bannedUserError } from '../../accounts/errors.ts';
import { hashPassword } from '../../accounts/passwords.ts';
import { sessionIdFromToken } from '../../accounts/session-token.ts';
import {
  createSession,
  findActiveSession,
  isBanned,
  type SignedIn,
  sessionJson,
  userJson,
} from '../../accounts/sessions.ts';
import type { AuthSettings } from '../../accounts/settings.ts';
import { checkPasswordLength, createUser, storePassword } from '../../accounts/users.ts';
import { revokeTokensOfCreator } from '../../commerce/access-tokens/service.ts';
import { Session, User } from '../../db/entities/index.ts';
import type { AppDependencies } from '../dependencies.ts';
import { parseBody, parseQuery } from '../validation.ts';
import {
  clearSessionCookies,
  cookieName,
  cookieNames,
  readCookie,
  setCookie,
  setSessionCookies,
  signCookieValue,
  verifySignedCookie,
} from './cookies.ts';
import { isShortLivedSession, requireSignedIn } from './session-context.ts';

const isEmail = (value: unknown): value is string => z.email().max(255).safeParse(value).success;

// User ids are UUIDs; anything else names no user (and must not reach a uuid column).
const isUserId = (value: string) =>
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);

// Better Auth coerces ids to strings, so a number is "a user that does not exist", not a 400.
const userId = z.coerce.string();
const roleValue = z.union([z.string(), z.array(z.string())]);
const userIdBody = z.object({ userId });

const createUserBody = z.object({
  email: z.string(),
  password: z.string(),
  name: z.string().max(255),
  role: roleValue.optional(),
  // Better Auth spreads `data` into the new row; these are the columns a caller may set.
  data: z
    .object({ emailVerified: z.boolean().optional(), image: z.string().nullable().optional() })
    .strict()
    .optional(),
});

const updateUserBody = z.object({ userId, data: z.record(z.string(), z.unknown()) });
const userUpdate = z.object({
  data: z
    .object({
      name: z.string().min(1).max(255).optional(),
      email: z.unknown().optional(),
      image: z.string().nullable().optional(),
      emailVerified: z.boolean().optional(),
      role: roleValue.optional(),
    })
    .strict(),
});

// A ban may last at most a thousand years: any longer and the end date is no date at all.
const maxBanSeconds = 1000 * 365 * 86_400;
const banUserBody = z.object({
  userId,
  banReason: z.string().optional(),
  banExpiresIn: z.number().positive().max(maxBanSeconds).optional(),
});

const setUserPasswordBody = z.object({ newPassword: z.string(), userId });
const revokeUserSessionBody = z.object({ sessionToken: z.string() });

const permissionMap = z.record(z.string(), z.array(z.string()));
// `permission` is the deprecated spelling; exactly one of the two must be given.
const hasPermissionBody = z
  .object({ userId: userId.optional(), role: z.string().optional() })
  .and(
    z.union([
      z.object({ permission: permissionMap, permissions: z.undefined().optional() }),
      z.object({ permission: z.undefined().optional(), permissions: permissionMap }),
    ]),
  );

/** The user columns list-users can sort and filter on, by the kind of value each holds. */
const userFieldKinds = {
  id: 'id',
  email: 'text',
  name: 'text',
  image: 'text',
  role: 'text',
  banReason: 'text',
  emailVerified: 'boolean',
  banned: 'boolean',
  banExpires: 'date',
  createdAt: 'date',
  updatedAt: 'date',
} as const;
type UserField = keyof typeof userFieldKinds;
const userField = z.enum(Object.keys(userFieldKinds) as [UserField, ...UserField[]]);

/** A filter value read as the field's kind, or undefined when it cannot be one. */
function filterValueOf(field: UserField, raw: string): string | boolean | Date | undefined {
  switch (userFieldKinds[field]) {
    case 'boolean':
      return raw === 'true' ? true : raw === 'false' ? false : undefined;
    case 'date': {
      const date = new Date(raw);
      return Number.isNaN(date.getTime()) ? undefined : date;
    }
    case 'id':
      return isUserId(raw) ? raw.toLowerCase() : undefined;
    case 'text':
      return raw;
  }
}

// Better Auth answers its Number(value) || undefined: "0" is as good as absent.
const pageNumber = z
  .string()
  .regex(/^\d+$/, 'a whole number')
  .transform((value) => Number(value) || undefined);

const listUsersQuery = z
  .object({
    searchValue: z.string().optional(),
    searchField: z.enum(['email', 'name']).optional(),
    searchOperator: z.enum(['contains', 'starts_with', 'ends_with']).optional(),
    limit: pageNumber.optional(),
    offset: pageNumber.optional(),
    sortBy: userField.optional(),
    sortDirection: z.enum(['asc', 'desc']).optional(),
    filterField: userField.optional(),
    filterValue: z.string().optional(),
    filterOperator: z.enum(['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'contains']).optional(),
  })
  .superRefine((query, issues) => {
    if (!query.filterValue) return;
    const field = query.filterField ?? 'email';
    if (filterValueOf(field, query.filterValue) === undefined) {
      issues.addIssue({
        code: 'custom',
        path: ['filterValue'],
        message: `not a valid ${userFieldKinds[field]} for ${field}`,
      });
    }
    if (query.filterOperator === 'contains' && userFieldKinds[field] !== 'text') {
      issues.addIssue({
        code: 'custom',
        path: ['filterOperator'],
        message: `contains applies to text fields, not ${field}`,
      });
    }
  });

const likePatterns = {
  contains: (value: string) => `%${value}%`,
  starts_with: (value: string) => `${value}%`,
  ends_with: (value: string) => `%${value}`,
} as const;
const comparisons = {
  eq: '$eq',
  ne: '$ne',
  lt: '$lt',
  lte: '$lte',
  gt: '$gt',
  gte: '$gte',
} as const;

// The searched text is literal: its own % and _ are not wildcards.
const escapeLike = (value: string) => value.replace(/[\\%_]/g, '\\$&');

/** list-users' search and filter as a query; search ignores case (Better Auth's LIKE does not). */
function listUsersWhere(query: z.infer<typeof listUsersQuery>): FilterQuery<User> {
  const conditions: FilterQuery<User>[] = [];
  if (query.searchValue) {
    const pattern = likePatterns[query.searchOperator ?? 'contains'];
    const field = query.searchField ?? 'email';
    conditions.push({ [field]: { $ilike: pattern(escapeLike(query.searchValue)) } });
  }
  if (query.filterValue) {
    const field = query.filterField ?? 'email';
    const operator = query.filterOperator ?? 'eq';
    const value = filterValueOf(field, query.filterValue);
    conditions.push(
      operator === 'contains'
        ? { [field]: { $ilike: likePatterns.contains(escapeLike(query.filterValue)) } }
        : { [field]: { [comparisons[operator]]: value } },
    );
  }
  return { $and: conditions };
}

const requestOrigin = (ctx: Context) => ({
  ipAddress: ctx.ip || null,
  userAgent: ctx.get('user-agent') || null,
});

function findUser(em: EntityManager, id: string): Promise<User | null> {
  return isUserId(id) ? em.findOne(User, { id: id.toLowerCase() }) : Promise.resolve(null);
}

async function requireUser(em: EntityManager, id: string): Promise<User> {
  const user = await findUser(em, id);
  if (!user) throw authError('not_found', 'USER_NOT_FOUND');
  return user;
}

/**
 * Better Auth's admin plugin (1.3.34) under /admin: users, roles, bans, impersonation and other
 * users' sessions, allowed by role (see admin-permissions.ts). Without a session every route
 * answers 401 with an empty body; a caller whose roles do not grant the action, 403.
 */
export function adminRoutes({ orm }: AppDependencies, settings: AuthSettings): Router {
  const router = new Router({ prefix: '/admin' });
  // Better Auth keeps the admin's own session here while they act as someone else.
  const adminSessionCookie = cookieName(settings, 'admin_session');

  /** The signed-in caller, who must hold every permission in `request`. */
  async function requireAdmin(
    ctx: Context,
    request: PermissionRequest,
    refusal: AuthMessage,
  ): Promise<SignedIn> {
    const signedIn = await requireSignedIn(ctx, orm, settings);
    const subject = { userId: signedIn.user.id, role: signedIn.user.role };
    if (!hasAdminPermission(subject, request, settings.adminUserIds)) {
      throw authError('forbidden', refusal);
    }
    return signedIn;
  }

  const checkRoles = (role: string | string[]) => {
    if (!rolesExist(role))
      throw authError('invalid', 'YOU_ARE_NOT_ALLOWED_TO_SET_NON_EXISTENT_VALUE');
  };

  router.post('/create-user', async (ctx) => {
    const body = parseBody(ctx, createUserBody);
    await requireAdmin(ctx, { user: ['create'] }, 'YOU_ARE_NOT_ALLOWED_TO_CREATE_USERS');
    if (!isEmail(body.email)) throw authError('invalid', 'INVALID_EMAIL');
    checkPasswordLength(body.password, settings.password);
    if (body.role !== undefined) checkRoles(body.role);
    const email = body.email.toLowerCase();
    const alreadyExists = () => authError('invalid', 'USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL');
    if (await orm.em.count(User, { email })) throw alreadyExists();
    const passwordHash = await hashPassword(body.password);
    try {
      const user = await orm.em.transactional(async (em) => {
        const created = createUser(em, {
          email,
          name: body.name,
          role: body.role === undefined ? defaultRole : joinRoles(body.role),
          emailVerified: body.data?.emailVerified ?? false,
          image: body.data?.image ?? null,
        });
        await storePassword(em, created, passwordHash);
        return created;
      });
      ctx.body = { user: userJson(user) };
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException) throw alreadyExists();
      throw error;
    }
  });

  router.get('/get-user', async (ctx) => {
    const { id } = parseQuery(ctx, z.object({ id: z.string() }));
    await requireAdmin(ctx, { user: ['get'] }, 'YOU_ARE_NOT_ALLOWED_TO_GET_USER');
    ctx.body = userJson(await requireUser(orm.em, id));
  });

  router.post('/update-user', async (ctx) => {
    const body = parseBody(ctx, updateUserBody);
    await requireAdmin(ctx, { user: ['update'] }, 'YOU_ARE_NOT_ALLOWED_TO_UPDATE_USERS');
    if (Object.keys(body.data).length === 0) throw authError('invalid', 'NO_DATA_TO_UPDATE');
    const { data } = parseBody(ctx, userUpdate);
    if (data.email !== undefined && !isEmail(data.email))
      throw authError('invalid', 'INVALID_EMAIL');
    if (data.role !== undefined) checkRoles(data.role);
    const user = await requireUser(orm.em, body.userId);
    const { email, role, ...profile } = data;
    orm.em.assign(user, {
      ...profile,
      ...(email === undefined ? {} : { email: email.toLowerCase() }),
      ...(role === undefined ? {} : { role: joinRoles(role) }),
    });
    try {
      await orm.em.flush();
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException) {
        throw authError('invalid', 'USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL');
      }
      throw error;
    }
    ctx.body = userJson(user);
  });

  router.post('/set-role', async (ctx) => {
    const body = parseBody(ctx, z.object({ userId, role: roleValue }));
    await requireAdmin(ctx, { user: ['set-role'] }, 'YOU_ARE_NOT_ALLOWED_TO_CHANGE_USERS_ROLE');
    checkRoles(body.role);
    const user = await requireUser(orm.em, body.userId);
    user.role = joinRoles(body.role);
    await orm.em.flush();
    ctx.body = { user: userJson(user) };
  });

  router.get('/list-users', async (ctx) => {
    const query = parseQuery(ctx, listUsersQuery);
    await requireAdmin(ctx, { user: ['list'] }, 'YOU_ARE_NOT_ALLOWED_TO_LIST_USERS');
    const direction = query.sortDirection ?? 'asc';
    // The id breaks ties, so pages never overlap or skip a user.
    const orderBy = query.sortBy
      ? { [query.sortBy]: direction, id: direction }
      : { createdAt: 'asc', id: 'asc' };
    const [users, total] = await orm.em.findAndCount(User, listUsersWhere(query), {
      orderBy,
      // Better Auth's SQL adapters answer 100 users when no limit is asked for.
      limit: query.limit ?? 100,
      offset: query.offset,
    });
    ctx.body = { users: users.map(userJson), total, limit: query.limit, offset: query.offset };
  });

  router.post('/ban-user', async (ctx) => {
    const body = parseBody(ctx, banUserBody);
    const admin = await requireAdmin(ctx, { user: ['ban'] }, 'YOU_ARE_NOT_ALLOWED_TO_BAN_USERS');
    // A ban, the end of the user's sessions and of the access tokens they created happen
    // together or not at all.
    const user = await orm.em.transactional(async (em) => {
      const banned = await requireUser(em, body.userId);
      if (banned.id === admin.user.id) throw authError('invalid', 'YOU_CANNOT_BAN_YOURSELF');
      em.assign(banned, {
        banned: true,
        banReason: body.banReason || 'No reason',
        banExpires: body.banExpiresIn ? new Date(Date.now() + body.banExpiresIn * 1000) : null,
      });
      await em.nativeDelete(Session, { user: banned });
      await revokeTokensOfCreator(em, banned.id);
      return banned;
    });
    ctx.body = { user: userJson(user) };
  });

  router.post('/unban-user', async (ctx) => {
    const body = parseBody(ctx, userIdBody);
    await requireAdmin(ctx, { user: ['ban'] }, 'YOU_ARE_NOT_ALLOWED_TO_BAN_USERS');
    const user = await requireUser(orm.em, body.userId);
    orm.em.assign(user, { banned: false, banReason: null, banExpires: null });
    await orm.em.flush();
    ctx.body = { user: userJson(user) };
  });

  router.post('/impersonate-user', async (ctx) => {
    const body = parseBody(ctx, userIdBody);
    const admin = await requireAdmin(
      ctx,
      { user: ['impersonate'] },
      'YOU_ARE_NOT_ALLOWED_TO_IMPERSONATE_USERS',
    );
    const target = await requireUser(orm.em, body.userId);
    // Better Auth refuses every new session of a banned user, this one included.
    if (isBanned(target)) throw bannedUserError();
    const created = createSession(orm.em, settings, target, {
      rememberMe: false,
      ...requestOrigin(ctx),
    });
    created.session.expiresAt = new Date(Date.now() + settings.impersonationSessionSeconds * 1000);
    created.session.impersonatedBy = admin.user.id;
    await orm.em.flush();
    // The browser now holds the impersonation session as a session cookie; the admin's own
    // token (and whether it was remembered) waits in the signed admin_session cookie.
    clearSessionCookies(ctx, settings);
    const adminRemembered = !isShortLivedSession(ctx, settings);
    setCookie(
      ctx,
      settings,
      adminSessionCookie,
      signCookieValue(`${admin.token}:${adminRemembered ? '' : 'true'}`, settings.secret),
      settings.session.expiresInSeconds,
    );
    setSessionCookies(ctx, settings, created.token, {
      rememberMe: false,
      maxAgeSeconds: settings.impersonationSessionSeconds,
    });
    ctx.body = { session: sessionJson(created.session, created.token), user: userJson(target) };
  });

  router.post('/stop-impersonating', async (ctx) => {
    const { session } = await requireSignedIn(ctx, orm, settings);
    if (!session.impersonatedBy) throw authError('invalid', 'YOU_ARE_NOT_IMPERSONATING_ANYONE');
    const cookie = readCookie(ctx, adminSessionCookie);
    const saved = cookie ? verifySignedCookie(cookie, settings.secret) : null;
    const [adminToken = '', adminShortLived = ''] = saved?.split(':') ?? [];
    const admin = adminToken
      ? await findActiveSession(orm.em, settings, adminToken, { refresh: false })
      : null;
    // Better Auth answers 500 here: the browser lost the cookie it was given.
    if (!admin || admin.user.id !== session.impersonatedBy) {
      throw authError('internal', 'FAILED_TO_FIND_ADMIN_SESSION');
    }
    await orm.em.nativeDelete(Session, { id: session.id });
    const rememberMe = adminShortLived !== 'true';
    setSessionCookies(ctx, settings, adminToken, {
      rememberMe,
      maxAgeSeconds: settings.session.expiresInSeconds,
    });
    setCookie(ctx, settings, adminSessionCookie, '', 0);
    if (rememberMe) setCookie(ctx, settings, cookieNames(settings).dontRemember, '', 0);
    ctx.body = { session: sessionJson(admin.session, adminToken), user: userJson(admin.user) };
  });

  router.post('/remove-user', async (ctx) => {
    const body = parseBody(ctx, userIdBody);
    const admin = await requireAdmin(
      ctx,
      { user: ['delete'] },
      'YOU_ARE_NOT_ALLOWED_TO_DELETE_USERS',
    );
    if (body.userId.toLowerCase() === admin.user.id) {
      throw authError('invalid', 'YOU_CANNOT_REMOVE_YOURSELF');
    }
    await orm.em.transactional(async (em) => {
      const user = await requireUser(em, body.userId);
      await revokeTokensOfCreator(em, user.id);
      // Sessions, accounts, memberships and API keys go with the user (foreign keys cascade).
      await em.nativeDelete(User, { id: user.id });
    });
    ctx.body = { success: true };
  });

  router.post('/set-user-password', async (ctx) => {
    const body = parseBody(ctx, setUserPasswordBody);
    await requireAdmin(
      ctx,
      { user: ['set-password'] },
      'YOU_ARE_NOT_ALLOWED_TO_SET_USERS_PASSWORD',
    );
    checkPasswordLength(body.newPassword, settings.password);
    const user = await requireUser(orm.em, body.userId);
    const password = await hashPassword(body.newPassword);
    // A user who signed up through a provider gets a password sign-in from now on.
    await storePassword(orm.em, user, password);
    await orm.em.flush();
    ctx.body = { status: true };
  });

  router.post('/list-user-sessions', async (ctx) => {
    const body = parseBody(ctx, userIdBody);
    const admin = await requireAdmin(
      ctx,
      { session: ['list'] },
      'YOU_ARE_NOT_ALLOWED_TO_LIST_USERS_SESSIONS',
    );
    const sessions = isUserId(body.userId)
      ? await orm.em.find(
          Session,
          { user: body.userId.toLowerCase(), expiresAt: { $gt: new Date() } },
          { orderBy: { createdAt: 'asc' } },
        )
      : [];
    // Only hashes are stored: a session stands for itself by its id, which revoke-user-session
    // accepts; the admin's own current session is shown with its token.
    const ownId = sessionIdFromToken(admin.token);
    ctx.body = {
      sessions: sessions.map((session) =>
        sessionJson(session, session.id === ownId ? admin.token : session.id),
      ),
    };
  });

  router.post('/revoke-user-session', async (ctx) => {
    const { sessionToken } = parseBody(ctx, revokeUserSessionBody);
    await requireAdmin(
      ctx,
      { session: ['revoke'] },
      'YOU_ARE_NOT_ALLOWED_TO_REVOKE_USERS_SESSIONS',
    );
    await orm.em.nativeDelete(Session, { id: [sessionIdFromToken(sessionToken), sessionToken] });
    ctx.body = { success: true };
  });

  router.post('/revoke-user-sessions', async (ctx) => {
    const body = parseBody(ctx, userIdBody);
    await requireAdmin(
      ctx,
      { session: ['revoke'] },
      'YOU_ARE_NOT_ALLOWED_TO_REVOKE_USERS_SESSIONS',
    );
    if (isUserId(body.userId)) {
      await orm.em.nativeDelete(Session, { user: body.userId.toLowerCase() });
    }
    ctx.body = { success: true };
  });

  router.post('/has-permission', async (ctx) => {
    const body = parseBody(ctx, hasPermissionBody);
    // Over HTTP the answer is about the caller; userId and role only matter to server calls.
    const { user } = await requireSignedIn(ctx, orm, settings);
    const request = body.permissions ?? body.permission;
    const success = hasAdminPermission(
      { userId: user.id, role: user.role },
      request,
      settings.adminUserIds,
    );
    ctx.body = { error: null, success };
  });

  return router;
}
