import { idPath, type Operation, pageOf } from '../http/openapi.ts';
import { accessTokenListParameters } from './routes.ts';
import {
  accessTokenCreateInput,
  accessTokenUpdateInput,
  accessTokenWireSchema,
  createdAccessTokenWireSchema,
} from './schemas.ts';

const tag = 'Organization Access Tokens';
const read = ['organization_access_tokens:read', 'organization_access_tokens:write'] as const;
const write = ['organization_access_tokens:write'] as const;

/** The operations of accessTokenRoutes (/v1/organization-access-tokens): from a signed-in member, never a token. */
export const accessTokenOperations: Operation[] = [
  {
    method: 'get',
    path: '/v1/organization-access-tokens',
    operationId: 'organization_access_tokens:list',
    summary: 'List the access tokens of the organization',
    tag,
    scopes: read,
    query: accessTokenListParameters.schema,
    response: { status: 200, schema: pageOf(accessTokenWireSchema) },
  },
  {
    method: 'post',
    path: '/v1/organization-access-tokens',
    operationId: 'organization_access_tokens:create',
    summary: 'Create an access token (its secret is shown once)',
    tag,
    scopes: write,
    body: accessTokenCreateInput,
    response: { status: 201, schema: createdAccessTokenWireSchema },
  },
  {
    method: 'patch',
    path: '/v1/organization-access-tokens/:id',
    operationId: 'organization_access_tokens:update',
    summary: 'Update an access token',
    tag,
    scopes: write,
    params: idPath,
    body: accessTokenUpdateInput,
    response: { status: 200, schema: accessTokenWireSchema },
    errors: [404],
  },
  {
    method: 'delete',
    path: '/v1/organization-access-tokens/:id',
    operationId: 'organization_access_tokens:delete',
    summary: 'Revoke an access token',
    tag,
    scopes: write,
    params: idPath,
    response: { status: 204 },
    errors: [404],
  },
];
