import { z } from 'zod';
import { idPath, type Operation, pageOf } from '../http/openapi.ts';
import { checkoutListParameters } from './routes.ts';
import {
  checkoutConfirmInput,
  checkoutCreateInput,
  checkoutPublicWireSchema,
  checkoutUpdateInput,
  checkoutUpdatePublicInput,
  checkoutWireSchema,
} from './schemas.ts';

const tag = 'Checkouts';
const read = ['checkouts:read', 'checkouts:write'] as const;
const write = ['checkouts:write'] as const;

/** The `{client_secret}` of the buyer's routes: the secret is the credential. */
const clientSecretPath = z.object({ client_secret: z.string() });

/** Polar's `CheckoutPublicConfirmed`: the session token the buyer's portal then uses. */
const confirmedCheckoutWireSchema = checkoutPublicWireSchema
  .extend({ status: z.literal('confirmed'), customer_session_token: z.string() })
  .meta({ id: 'CheckoutPublicConfirmed' });

/** The operations of checkoutRoutes: the seller's /v1/checkouts, the buyer's client routes. */
export const checkoutOperations: Operation[] = [
  {
    method: 'get',
    path: '/v1/checkouts',
    operationId: 'checkouts:list',
    summary: 'List checkouts',
    tag,
    scopes: read,
    query: checkoutListParameters.schema,
    response: { status: 200, schema: pageOf(checkoutWireSchema) },
  },
  {
    method: 'post',
    path: '/v1/checkouts',
    operationId: 'checkouts:create',
    summary: 'Create a checkout',
    tag,
    scopes: write,
    body: checkoutCreateInput,
    response: { status: 201, schema: checkoutWireSchema },
  },
  {
    method: 'get',
    path: '/v1/checkouts/:id',
    operationId: 'checkouts:get',
    summary: 'Get a checkout',
    tag,
    scopes: read,
    params: idPath,
    response: { status: 200, schema: checkoutWireSchema },
    errors: [404],
  },
  {
    method: 'patch',
    path: '/v1/checkouts/:id',
    operationId: 'checkouts:update',
    summary: 'Update a checkout',
    tag,
    scopes: write,
    params: idPath,
    body: checkoutUpdateInput,
    response: { status: 200, schema: checkoutWireSchema },
    errors: [404],
  },
  {
    method: 'get',
    path: '/v1/checkouts/client/:client_secret',
    operationId: 'checkouts:client_get',
    summary: 'Get a checkout by its client secret (the buyer)',
    tag,
    auth: 'public',
    params: clientSecretPath,
    response: { status: 200, schema: checkoutPublicWireSchema },
    errors: [404, 410],
  },
  {
    method: 'patch',
    path: '/v1/checkouts/client/:client_secret',
    operationId: 'checkouts:client_update',
    summary: 'Update a checkout by its client secret (the buyer)',
    tag,
    auth: 'public',
    params: clientSecretPath,
    body: checkoutUpdatePublicInput,
    response: { status: 200, schema: checkoutPublicWireSchema },
    errors: [403, 404, 410],
  },
  {
    method: 'post',
    path: '/v1/checkouts/client/:client_secret/confirm',
    operationId: 'checkouts:client_confirm',
    summary: 'Confirm a checkout and pay (the buyer)',
    tag,
    auth: 'public',
    params: clientSecretPath,
    body: checkoutConfirmInput,
    response: { status: 200, schema: confirmedCheckoutWireSchema },
    errors: [400, 403, 404, 410],
  },
  {
    method: 'post',
    path: '/v1/checkouts/client/:client_secret/authentication',
    operationId: 'checkouts:client_authentication',
    summary: "The buyer's card authentication (3-D Secure) has ended: settle the payment",
    tag,
    auth: 'public',
    params: clientSecretPath,
    response: { status: 200, schema: checkoutPublicWireSchema },
    errors: [404],
  },
  {
    method: 'get',
    path: '/v1/checkout-links/:client_secret/redirect',
    operationId: 'checkout-links:redirect',
    summary: 'Open a new checkout from a link and redirect to its page',
    tag: 'Checkout Links',
    auth: 'public',
    params: clientSecretPath,
    response: { status: 302 },
    errors: [404],
  },
];
