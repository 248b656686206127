import type { Context, Middleware } from 'koa';
import { scopesOfMember } from '../../accounts/organization/roles.ts';
import { findActiveSession, isFreshSession } from '../../accounts/sessions.ts';
import { type AuthSettings, authSettings } from '../../accounts/settings.ts';
import { cookieNames, readCookie, verifySignedCookie } from '../../api/auth/cookies.ts';
import { isTrustedOrigin } from '../../api/auth/origins.ts';
import type { AppDependencies } from '../../api/dependencies.ts';
import { AppError } from '../../core/errors.ts';
import { Member, OrganizationAccessToken, type User } from '../../db/entities/index.ts';
import type { Orm } from '../../db/orm.ts';
import { grants, type Scope } from '../../domain/scopes.ts';
import { hashToken } from '../../domain/token-hashes.ts';
import { type CommerceCaller, organizationTokenPrefix } from '../caller.ts';
import { commerceError } from '../errors.ts';
import { ReadCache } from './read-cache.ts';

export interface CommerceState {
  caller: CommerceCaller | null;
  /** Credentials that resolved to no live token: protected routes answer `invalid_token`. */
  invalidToken: boolean;
}

// Last-used times are bookkeeping: written at most once a minute per token, not per request.
const lastUsedWriteInterval = 60_000;

const anonymous: CommerceState = { caller: null, invalidToken: false };
const invalidCredentials: CommerceState = { caller: null, invalidToken: true };

// Identifying a caller costs queries, so `identifyCaller` only leaves the means here and the
// `scope` middleware runs it: routes that need no caller (public ones) never pay for it.
// Kept in the request's state (`pendingIdentification`): cheaper than a WeakMap entry per request.
type Identification = (ctx: Context) => Promise<CommerceState>;

/**
 * Prepares the caller of every /v1 request, identified when a route asks for it (`scope`): an
 * organization access token (Bearer `polar_oat_…`) or a dashboard session cookie acting for the
 * session's active organization, with the scopes the member's role grants (owners and admins
 * every one, members the reads, an organization's own role what it names). Cookie requests that
 * change things must come from a trusted origin (CSRF).
 */
export function identifyCaller({ orm, config, changes }: AppDependencies): Middleware {
  const settings = authSettings(config);
  // Tokens are read on every request and change rarely: kept per process for a minute at most,
  // dropped at once when one is revoked or changed anywhere (see db/change-notifications.ts).
  const tokens = new ReadCache<StoredToken | null>(changes, 'accessToken', {
    maxAgeMs: 60_000,
    maxKeysPerScope: 1,
    maxScopes: 10_000,
  });
  // One identifying function per app, not a closure per request.
  const identifyRequest = (ctx: Context) => identify(ctx, orm, tokens, settings);
  return (ctx, next) => {
    ctx.state.pendingIdentification = identifyRequest;
    return next();
  };
}

/**
 * Any Authorization header makes the request a token request: a value that is not a live
 * organization token is refused, never retried as the session cookie the browser also sent.
 */
function identify(
  ctx: Context,
  orm: Orm,
  tokens: ReadCache<StoredToken | null>,
  settings: AuthSettings,
): Promise<CommerceState> {
  const authorization = ctx.get('authorization');
  if (authorization) return tokenCaller(orm, tokens, authorization);
  return sessionCaller(ctx, orm, settings);
}

/** What a request needs of an organization access token row. */
interface StoredToken {
  id: string;
  organizationId: string;
  scopes: Set<string>;
  expiresAt: number | null;
  /** Updated in place when this process writes it, so the cached copy throttles writes too. */
  lastUsedAt: number | null;
}

async function loadToken(orm: Orm, tokenHash: string): Promise<StoredToken | null> {
  const token = await orm.em.findOne(
    OrganizationAccessToken,
    { tokenHash },
    { fields: ['organization', 'scopes', 'expiresAt', 'lastUsedAt'] },
  );
  if (!token) return null;
  return {
    id: token.id,
    organizationId: token.organization.id,
    scopes: new Set(token.scopes),
    expiresAt: token.expiresAt?.getTime() ?? null,
    lastUsedAt: token.lastUsedAt?.getTime() ?? null,
  };
}

/** The credential of an `Authorization: Bearer …` header, if it is one. */
export const bearerOf = (authorization: string) => /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];

async function tokenCaller(
  orm: Orm,
  tokens: ReadCache<StoredToken | null>,
  authorization: string,
): Promise<CommerceState> {
  const bearer = bearerOf(authorization);
  if (!bearer?.startsWith(organizationTokenPrefix)) return invalidCredentials;
  const tokenHash = hashToken(bearer);
  const token = await tokens.read(tokenHash, '', () => loadToken(orm, tokenHash), {
    worthKeeping: (found) => found !== null,
  });
  const now = Date.now();
  if (!token || (token.expiresAt !== null && token.expiresAt <= now)) return invalidCredentials;
  if (token.lastUsedAt === null || now - token.lastUsedAt > lastUsedWriteInterval) {
    token.lastUsedAt = now;
    // Conditional, so concurrent requests of one token (in any process) write it once.
    const staleBefore = new Date(now - lastUsedWriteInterval);
    await orm.em.nativeUpdate(
      OrganizationAccessToken,
      { id: token.id, $or: [{ lastUsedAt: null }, { lastUsedAt: { $lt: staleBefore } }] },
      { lastUsedAt: new Date(now) },
    );
  }
  return {
    caller: {
      kind: 'organization_token',
      organizationId: token.organizationId,
      tokenId: token.id,
      scopes: token.scopes,
    },
    invalidToken: false,
  };
}

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The live session of the dashboard session cookie (never a Better Auth bearer token or API key,
 * which /v1 does not take), or null. Requests that change things must come from a trusted origin.
 */
async function cookieSession(ctx: Context, orm: Orm, settings: AuthSettings) {
  const cookie = readCookie(ctx, cookieNames(settings).sessionToken);
  if (!cookie) return null;
  // Checked before anything is read: a forged cross-site request learns nothing.
  if (!safeMethods.has(ctx.method)) {
    const origin = ctx.get('origin') || ctx.get('referer');
    if (!isTrustedOrigin(origin, settings.trustedOrigins)) {
      throw commerceError('NotPermitted', 'Invalid origin');
    }
  }
  const sessionToken = verifySignedCookie(cookie, settings.secret);
  if (!sessionToken) return null;
  // Not slid forward here: /v1 does not re-issue the cookie, Better Auth's get-session does.
  return findActiveSession(orm.em, settings, sessionToken, { refresh: false });
}

/** The dashboard session cookie, acting for its active organization: none answers as anonymous. */
async function sessionCaller(
  ctx: Context,
  orm: Orm,
  settings: AuthSettings,
): Promise<CommerceState> {
  const active = await cookieSession(ctx, orm, settings);
  const organizationId = active?.session.activeOrganizationId;
  if (!active || !organizationId) return anonymous;
  const member = await orm.em.findOne(
    Member,
    { organization: organizationId, user: active.user.id },
    { fields: ['role'] },
  );
  if (!member) return anonymous;
  // What the member's role grants: every scope for owners and admins, reads for members, and
  // exactly the map of a role the organization defined.
  const scopes = await scopesOfMember(orm.em, organizationId, member.role);
  return {
    caller: {
      kind: 'member',
      organizationId,
      userId: active.user.id,
      role: member.role,
      scopes: new Set(scopes),
      freshSession: isFreshSession(active.session, settings),
    },
    invalidToken: false,
  };
}

/**
 * The signed-in person of a route for people, not organizations (creating an organization): the
 * dashboard session cookie, whatever its active organization. An organization access token is
 * refused (403 NotPermitted), any other Authorization value answers 401 invalid_token, and no
 * session 401 Unauthorized.
 */
export function signedInUser({ orm, config }: AppDependencies) {
  const settings = authSettings(config);
  return async (ctx: Context): Promise<User> => {
    const authorization = ctx.get('authorization');
    if (!authorization) {
      const active = await cookieSession(ctx, orm, settings);
      if (active) return active.user;
    } else if (bearerOf(authorization)?.startsWith(organizationTokenPrefix)) {
      throw commerceError(
        'NotPermitted',
        'This takes a signed-in person, not an organization access token.',
      );
    }
    return refuseAnonymous(ctx, authorization !== '');
  };
}

/** The request's caller state, identifying the caller on first use. */
async function identifiedState(ctx: Context): Promise<CommerceState> {
  const known = ctx.state.commerce as CommerceState | undefined;
  if (known) return known;
  const identify = ctx.state.pendingIdentification as Identification | undefined;
  const state = identify ? await identify(ctx) : anonymous;
  ctx.state.commerce = state;
  return state;
}

/** No caller: 401 Unauthorized, or 401 invalid_token (OAuth2 style) for dead credentials. */
function refuseAnonymous(ctx: Context, invalidToken: boolean): never {
  ctx.set('WWW-Authenticate', 'Bearer realm="tollgate"');
  if (invalidToken) {
    throw new AppError(
      'unauthenticated',
      'invalid_token',
      'The access token is invalid or expired.',
      {
        error_description: 'The access token is invalid or expired.',
      },
    );
  }
  throw commerceError('Unauthorized');
}

/**
 * The caller of a protected route, allowed `scope`: no credentials answer 401 Unauthorized, a
 * dead token 401 invalid_token (OAuth2 style, as Polar), a missing scope 403 insufficient_scope.
 * The caller is identified by the route's `scope` middleware, which must run first.
 */
export function requireCaller(ctx: Context, scope: Scope): CommerceCaller {
  const state = ctx.state.commerce as CommerceState | undefined;
  if (!state) throw new Error('requireCaller runs after the scope() middleware of its route');
  const { caller, invalidToken } = state;
  if (!caller) return refuseAnonymous(ctx, invalidToken);
  if (!grants(caller.scopes, scope)) {
    throw new AppError('forbidden', 'insufficient_scope', `The ${scope} scope is required.`, {
      error_description: `The ${scope} scope is required.`,
    });
  }
  return caller;
}

// Each `scope` middleware's scope, so the route table tells what every route requires.
const requiredScopes = new WeakMap<Middleware, Scope>();

/** Identifies the caller and requires `wanted` of it: `router.get(path, scope('x:read'), ...)`. */
export function scope(wanted: Scope): Middleware {
  const middleware: Middleware = async (ctx, next) => {
    await identifiedState(ctx);
    ctx.state.caller = requireCaller(ctx, wanted);
    return next();
  };
  requiredScopes.set(middleware, wanted);
  return middleware;
}

/** The scope a `scope(...)` middleware requires (the adversarial suite reads the route table). */
export const requiredScopeOf = (middleware: unknown): Scope | undefined =>
  typeof middleware === 'function' ? requiredScopes.get(middleware as Middleware) : undefined;

/** The caller a `scope` middleware admitted. */
export const callerOf = (ctx: Context): CommerceCaller => ctx.state.caller as CommerceCaller;
