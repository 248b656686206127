import { idPath, type Operation, pageOf } from '../http/openapi.ts';
import { checkoutLinkListParameters } from './routes.ts';
import {
  checkoutLinkCreateInput,
  checkoutLinkUpdateInput,
  checkoutLinkWireSchema,
} from './schemas.ts';

const tag = 'Checkout Links';
const read = ['checkout_links:read', 'checkout_links:write'] as const;
const write = ['checkout_links:write'] as const;

/** The operations of checkoutLinkRoutes (/v1/checkout-links); the redirect is a checkout route. */
export const checkoutLinkOperations: Operation[] = [
  {
    method: 'get',
    path: '/v1/checkout-links',
    operationId: 'checkout-links:list',
    summary: 'List checkout links',
    tag,
    scopes: read,
    query: checkoutLinkListParameters.schema,
    response: { status: 200, schema: pageOf(checkoutLinkWireSchema) },
  },
  {
    method: 'post',
    path: '/v1/checkout-links',
    operationId: 'checkout-links:create',
    summary: 'Create a checkout link',
    tag,
    scopes: write,
    body: checkoutLinkCreateInput,
    response: { status: 201, schema: checkoutLinkWireSchema },
  },
  {
    method: 'get',
    path: '/v1/checkout-links/:id',
    operationId: 'checkout-links:get',
    summary: 'Get a checkout link',
    tag,
    scopes: read,
    params: idPath,
    response: { status: 200, schema: checkoutLinkWireSchema },
    errors: [404],
  },
  {
    method: 'patch',
    path: '/v1/checkout-links/:id',
    operationId: 'checkout-links:update',
    summary: 'Update a checkout link',
    tag,
    scopes: write,
    params: idPath,
    body: checkoutLinkUpdateInput,
    response: { status: 200, schema: checkoutLinkWireSchema },
    errors: [404],
  },
  {
    method: 'delete',
    path: '/v1/checkout-links/:id',
    operationId: 'checkout-links:delete',
    summary: 'Delete a checkout link',
    tag,
    scopes: write,
    params: idPath,
    response: { status: 204 },
    errors: [404],
  },
];
