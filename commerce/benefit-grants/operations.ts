import { customerBenefitGrantWireSchema } from '../customer-portal/schemas.ts';
import { idPath, type Operation, pageOf } from '../http/openapi.ts';
import { benefitBoundListParameters } from '../http/portal.ts';
import {
  customerBenefitGrantUpdateInput,
  customerDownloadableWireSchema,
  oauthAuthorizeQuery,
  oauthAuthorizeWireSchema,
} from './schemas.ts';

const tag = 'Customer Portal';

/**
 * The operations of customerPortalGrantRoutes (/v1/customer-portal): linking the account a
 * grant waits for, and the granted files. The OAuth callback and the signed download URL are
 * public: the signed state or URL is the credential.
 */
export const customerPortalGrantOperations: Operation[] = [
  {
    method: 'patch',
    path: '/v1/customer-portal/benefit-grants/:id',
    operationId: 'customer_portal:benefit-grants:update',
    summary: 'Link the Discord or GitHub account a benefit grant waits for',
    tag,
    auth: 'customer',
    params: idPath,
    body: customerBenefitGrantUpdateInput,
    response: { status: 200, schema: customerBenefitGrantWireSchema },
    errors: [403, 404],
  },
  {
    method: 'get',
    path: '/v1/customer-portal/oauth-accounts/authorize',
    operationId: 'customer_portal:oauth-accounts:authorize',
    summary: 'Get the URL where the customer consents to link a Discord or GitHub account',
    tag,
    auth: 'customer',
    query: oauthAuthorizeQuery,
    response: { status: 200, schema: oauthAuthorizeWireSchema },
  },
  {
    method: 'get',
    path: '/v1/customer-portal/oauth-accounts/callback',
    operationId: 'customer_portal:oauth-accounts:callback',
    summary: 'Where the platform sends the customer back: links the account, then redirects',
    tag,
    auth: 'public',
    response: { status: 302 },
    errors: [403],
  },
  {
    method: 'get',
    path: '/v1/customer-portal/downloadables',
    operationId: 'customer_portal:downloadables:list',
    summary: 'List the customer’s granted files with their download URLs',
    tag,
    auth: 'customer',
    query: benefitBoundListParameters.schema,
    response: { status: 200, schema: pageOf(customerDownloadableWireSchema) },
  },
  {
    method: 'get',
    path: '/v1/customer-portal/downloadables/files/:grant',
    operationId: 'customer_portal:downloadables:get',
    summary: 'Download a granted file from its signed, expiring URL',
    tag,
    auth: 'public',
    response: { status: 200, contentType: 'application/octet-stream' },
    errors: [403, 404],
  },
];
