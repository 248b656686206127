import { createHash } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import { isTrustedOrigin } from '../../api/auth/origins.ts';
import { signedInOrNull } from '../../api/auth/session-context.ts';
import { authSettings } from '../../api/auth/settings.ts';
import type { AppDependencies } from '../../api/dependencies.ts';
import { ApiError } from '../../api/errors.ts';
import { Member, OrganizationAccessToken } from '../../db/entities/index.ts';
import { splitRoles } from '../../domain/permissions.ts';
import { commerceError } from './errors.ts';
import { allScopes, grants, type Scope } from './scopes.ts';

export const organizationTokenPrefix = 'polar_oat_';

/** Who is calling /v1, always on behalf of exactly one organization. */
export type CommerceCaller =
  | { kind: 'organization_token'; organizationId: string; tokenId: string; scopes: Set<string> }
  | { kind: 'member'; organizationId: string; userId: string; role: string; scopes: Set<string> };

export interface CommerceState {
  caller: CommerceCaller | null;
  /** A bearer value that resolved to no live token: protected routes answer `invalid_token`. */
  invalidToken: boolean;
}

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

// Last-used times are bookkeeping: written at most once a minute per token, not per request.
const lastUsedWriteInterval = 60_000;

/**
 * Resolves the caller of every /v1 request: an organization access token (Bearer `polar_oat_…`)
 * or a dashboard session cookie acting for the session's active organization. Members may read;
 * owners and admins may also write. Cookie requests that change things must come from a trusted
 * origin (CSRF). Routes then ask for what they need with `requireScope`.
 */
export function identifyCaller({ orm, config }: AppDependencies): Middleware {
  const settings = authSettings(config);
  return async (ctx, next) => {
    const state: CommerceState = { caller: null, invalidToken: false };
    ctx.state.commerce = state;
    const bearer = /^Bearer\s+(.+)$/i.exec(ctx.get('authorization'))?.[1]?.trim();
    if (bearer) {
      state.caller = await organizationTokenCaller(ctx, bearer);
      state.invalidToken = state.caller === null;
      return next();
    }
    const signedIn = await signedInOrNull(ctx, orm, settings);
    const organizationId = signedIn?.session.activeOrganizationId;
    if (signedIn && organizationId) {
      if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
        const origin = ctx.get('origin') || ctx.get('referer');
        if (!isTrustedOrigin(origin, settings.trustedOrigins)) {
          throw commerceError('NotPermitted', 'Invalid origin');
        }
      }
      const member = await orm.em.findOne(
        Member,
        { organization: organizationId, user: signedIn.user.id },
        { fields: ['role'] },
      );
      if (member) {
        const writer = splitRoles(member.role).some((role) => role === 'owner' || role === 'admin');
        state.caller = {
          kind: 'member',
          organizationId,
          userId: signedIn.user.id,
          role: member.role,
          scopes: new Set(writer ? allScopes : allScopes.filter((s) => s.endsWith(':read'))),
        };
      }
    }
    return next();
  };

  async function organizationTokenCaller(
    ctx: Context,
    bearer: string,
  ): Promise<CommerceCaller | null> {
    if (!bearer.startsWith(organizationTokenPrefix)) return null;
    const token = await orm.em.findOne(
      OrganizationAccessToken,
      { tokenHash: hashToken(bearer) },
      { fields: ['organization', 'scopes', 'expiresAt', 'lastUsedAt'] },
    );
    const now = Date.now();
    if (!token || (token.expiresAt && token.expiresAt.getTime() <= now)) return null;
    if (!token.lastUsedAt || now - token.lastUsedAt.getTime() > lastUsedWriteInterval) {
      await orm.em.nativeUpdate(
        OrganizationAccessToken,
        { id: token.id },
        { lastUsedAt: new Date(now) },
      );
    }
    ctx.state.tokenId = token.id;
    return {
      kind: 'organization_token',
      organizationId: token.organization.id,
      tokenId: token.id,
      scopes: new Set(token.scopes),
    };
  }
}

const commerceState = (ctx: Context): CommerceState =>
  (ctx.state.commerce as CommerceState | undefined) ?? { caller: null, invalidToken: false };

/**
 * The caller of a protected route, allowed `scope`: no credentials answer 401 Unauthorized, a
 * dead token 401 invalid_token (OAuth2 style, as Polar), a missing scope 403 insufficient_scope.
 */
export function requireCaller(ctx: Context, scope: Scope): CommerceCaller {
  const { caller, invalidToken } = commerceState(ctx);
  if (!caller) {
    ctx.set('WWW-Authenticate', 'Bearer realm="tollgate"');
    if (invalidToken) {
      throw new ApiError(401, 'invalid_token', 'The access token is invalid or expired.', {
        error_description: 'The access token is invalid or expired.',
      });
    }
    throw commerceError('Unauthorized');
  }
  if (!grants(caller.scopes, scope)) {
    throw new ApiError(403, 'insufficient_scope', `The ${scope} scope is required.`, {
      error_description: `The ${scope} scope is required.`,
    });
  }
  return caller;
}

/** Middleware form of `requireCaller`, for a router's routes: `router.get(path, scope('x:read'), ...)`. */
export const scope =
  (wanted: Scope): Middleware =>
  (ctx, next) => {
    ctx.state.caller = requireCaller(ctx, wanted);
    return next();
  };

/** The caller a `scope` middleware admitted. */
export const callerOf = (ctx: Context): CommerceCaller => ctx.state.caller as CommerceCaller;
