import Router from '@koa/router';
import type { Context } from 'koa';
import type { AppDependencies } from '../../api/dependencies.ts';
import { parseBody } from '../../api/validation.ts';
import { notPermitted } from '../errors.ts';
import { callerOf, scope } from '../http/caller.ts';
import {
  idsParameter,
  listParameters,
  listRoute,
  pageParameters,
  sortingParameter,
} from '../http/listing.ts';
import { parseCreateBody, readIdParam } from '../http/request.ts';
import {
  accessTokenCreateInput,
  accessTokenSortFields,
  accessTokenUpdateInput,
  accessTokenWire,
} from './schemas.ts';
import {
  createAccessToken,
  listAccessTokens,
  revokeAccessToken,
  updateAccessToken,
} from './service.ts';

/** Tokens are seen by people (any member, signed in), never by another token. */
function requireMember(ctx: Context) {
  const caller = callerOf(ctx);
  if (caller.kind !== 'member') {
    throw notPermitted('Organization access tokens are managed from a signed-in session.');
  }
  return caller;
}

/** Tokens are managed by people (owners and admins, signed in recently), never by another token. */
function requirePerson(ctx: Context) {
  const caller = requireMember(ctx);
  // A stolen, long-lived cookie must not mint credentials that outlive it (as in Polar).
  if (!caller.freshSession) {
    throw notPermitted('Sign in again to manage organization access tokens.');
  }
  return caller;
}

/** The query of the access token list (documented by organization_access_tokens:list). */
export const accessTokenListParameters = listParameters({
  page: pageParameters,
  sorting: sortingParameter(accessTokenSortFields, 'created_at'),
  organizationIds: idsParameter('organization_id'),
});

/**
 * /v1/organization-access-tokens: create, list, update and revoke the organization's tokens.
 * Every member may list them (never their secrets, which only their creation shows); owners
 * and admins manage them.
 */
export function accessTokenRoutes({ orm }: AppDependencies): Router {
  const router = new Router({ prefix: '/v1/organization-access-tokens' });

  router.get(
    '/',
    scope('organization_access_tokens:read'),
    listRoute({
      lister: requireMember,
      ownOrganizationOnly: true,
      query: accessTokenListParameters,
      list: (caller, query) => listAccessTokens(orm.em, caller.organizationId, query),
      serialize: (tokens) => tokens.map(accessTokenWire),
    }),
  );

  router.post('/', scope('organization_access_tokens:write'), async (ctx) => {
    const caller = requirePerson(ctx);
    const input = parseCreateBody(ctx, accessTokenCreateInput, caller);
    const { accessToken, token } = await createAccessToken(orm.em, {
      organizationId: caller.organizationId,
      comment: input.comment,
      scopes: input.scopes,
      // Absent: the default lifetime (the service's); null: never, as asked.
      expiresAt:
        input.expires_in == null
          ? input.expires_in
          : new Date(Date.now() + input.expires_in * 1000),
      createdByUserId: caller.userId,
    });
    ctx.status = 201;
    ctx.body = { organization_access_token: accessTokenWire(accessToken), token };
  });

  router.patch('/:id', scope('organization_access_tokens:write'), async (ctx) => {
    const caller = requirePerson(ctx);
    const id = readIdParam(ctx);
    const input = parseBody(ctx, accessTokenUpdateInput);
    ctx.body = accessTokenWire(await updateAccessToken(orm.em, caller.organizationId, id, input));
  });

  router.delete('/:id', scope('organization_access_tokens:write'), async (ctx) => {
    const caller = requirePerson(ctx);
    await revokeAccessToken(orm.em, caller.organizationId, readIdParam(ctx));
    ctx.status = 204;
  });

  return router;
}
