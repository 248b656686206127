import { idPath, type Operation, pageOf } from '../http/openapi.ts';
import { organizationListParameters } from './routes.ts';
import {
  organizationCreateInput,
  organizationUpdateInput,
  organizationWireSchema,
  storefrontWireSchema,
} from './schemas.ts';

const tag = 'Organizations';
const read = ['organizations:read', 'organizations:write'] as const;
const write = ['organizations:write'] as const;

/** The operations of organizationRoutes (/v1/organizations). */
export const organizationOperations: Operation[] = [
  {
    method: 'post',
    path: '/v1/organizations',
    operationId: 'organizations:create',
    summary: 'Create an organization (from a signed-in session)',
    tag,
    auth: 'session',
    body: organizationCreateInput,
    response: { status: 201, schema: organizationWireSchema },
  },
  {
    method: 'get',
    path: '/v1/organizations',
    operationId: 'organizations:list',
    summary: "List organizations (the caller's own)",
    tag,
    scopes: read,
    query: organizationListParameters.schema,
    response: { status: 200, schema: pageOf(organizationWireSchema) },
  },
  {
    method: 'get',
    path: '/v1/organizations/:id',
    operationId: 'organizations:get',
    summary: 'Get an organization',
    tag,
    scopes: read,
    params: idPath,
    response: { status: 200, schema: organizationWireSchema },
    errors: [404],
  },
  {
    method: 'patch',
    path: '/v1/organizations/:id',
    operationId: 'organizations:update',
    summary: 'Update an organization',
    tag,
    scopes: write,
    params: idPath,
    body: organizationUpdateInput,
    response: { status: 200, schema: organizationWireSchema },
    errors: [404],
  },
];

/** The operations of customerPortalOrganizationRoutes: the public storefront. */
export const storefrontOperations: Operation[] = [
  {
    method: 'get',
    path: '/v1/customer-portal/organizations/:slug',
    operationId: 'customer_portal:organizations:get',
    summary: 'Get the storefront of an organization: it and the products it sells',
    tag: 'Customer Portal',
    auth: 'public',
    response: { status: 200, schema: storefrontWireSchema },
    errors: [404],
  },
];
