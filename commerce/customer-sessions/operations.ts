import { z } from 'zod';
import type { Operation } from '../http/openapi.ts';
import {
  customerSessionCreateInput,
  customerSessionWireSchema,
  signInAuthenticateInput,
  signInRequestInput,
  signInSessionWireSchema,
} from './schemas.ts';

/** The operations of customerSessionRoutes (/v1/customer-sessions). */
export const customerSessionOperations: Operation[] = [
  {
    method: 'post',
    path: '/v1/customer-sessions',
    operationId: 'customer_sessions:create',
    summary: 'Open a customer portal session for a customer (the token is shown once)',
    tag: 'Customer sessions',
    scopes: ['customer_sessions:write'],
    body: customerSessionCreateInput,
    response: { status: 201, schema: customerSessionWireSchema },
  },
];

/**
 * The operations of customerPortalSignInRoutes (/v1/customer-portal/customer-session, Tollgate's
 * own): a customer signs into the portal with a link mailed to them.
 */
export const customerPortalSignInOperations: Operation[] = [
  {
    method: 'post',
    path: '/v1/customer-portal/customer-session/request',
    operationId: 'customer_portal:customer_session:request',
    summary:
      'Mail a portal sign-in link to the customer with this address (202 whether or not there is one)',
    tag: 'Customer Portal',
    auth: 'public',
    body: signInRequestInput,
    response: { status: 202, schema: z.object({}) },
    errors: [404],
  },
  {
    method: 'post',
    path: '/v1/customer-portal/customer-session/authenticate',
    operationId: 'customer_portal:customer_session:authenticate',
    summary: 'Open a customer session with the token of a mailed sign-in link',
    tag: 'Customer Portal',
    auth: 'public',
    body: signInAuthenticateInput,
    response: { status: 200, schema: signInSessionWireSchema },
    errors: [401],
  },
];
