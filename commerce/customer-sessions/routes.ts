import Router from '@koa/router';
import type { AppDependencies } from '../../api/dependencies.ts';
import { parseBody } from '../../api/validation.ts';
import { AppError, invalidField } from '../../core/errors.ts';
import { Organization } from '../../db/entities/index.ts';
import { newId } from '../../db/ids.ts';
import { startCustomerSignIn } from '../../processes/starters.ts';
import { getCustomer } from '../customers/service.ts';
import { resourceNotFound } from '../errors.ts';
import { callerOf, scope } from '../http/caller.ts';
import { publicRateLimit, publicSubjectRateLimit } from '../http/rate-limits.ts';
import {
  customerSessionCreateInput,
  customerSessionWire,
  signInAuthenticateInput,
  signInRequestInput,
  signInSessionWire,
} from './schemas.ts';
import { createCustomerSession, openSessionWithSignInLink } from './service.ts';

/** /v1/customer-sessions: a seller opens a customer portal session for one of its customers. */
export function customerSessionRoutes({ orm, config }: AppDependencies): Router {
  const router = new Router({ prefix: '/v1/customer-sessions' });

  router.post('/', scope('customer_sessions:write'), async (ctx) => {
    const caller = callerOf(ctx);
    const input = parseBody(ctx, customerSessionCreateInput);
    const [lookup, field] =
      'customer_id' in input
        ? [{ id: input.customer_id }, 'customer_id']
        : [{ externalId: input.external_customer_id }, 'external_customer_id'];
    // Polar answers an unknown customer as a bad field, not a 404.
    const customer = await getCustomer(orm.em, caller.organizationId, lookup).catch((error) => {
      if (error instanceof AppError && error.refusal === 'not_found') {
        throw invalidField(['body', field], 'Customer does not exist.');
      }
      throw error;
    });
    const created = await createCustomerSession(orm.em, { customerId: customer.id });
    ctx.status = 201;
    ctx.body = customerSessionWire(created, customer, config.api.publicUrl);
  });

  return router;
}

/**
 * /v1/customer-portal/customer-session: a customer gets into the portal without a password. They
 * ask for a link at their address (`request`), which is mailed if they are a customer; the portal
 * page the link opens posts its token (`authenticate`: a POST, so that mail scanners following
 * the link do not use it up) and receives a customer session.
 */
export function customerPortalSignInRoutes(dependencies: AppDependencies): Router {
  const { orm, temporal, config } = dependencies;
  const router = new Router({ prefix: '/v1/customer-portal/customer-session' });
  const limit = publicRateLimit(dependencies);
  const limitSubject = publicSubjectRateLimit(dependencies);

  /**
   * 202 whether or not anyone has the address: the lookup and the mail happen in the workflow,
   * so known and unknown addresses cost this request the same work and time.
   */
  router.post('/request', limit('portalSignInRequest'), async (ctx) => {
    const input = parseBody(ctx, signInRequestInput);
    const organization = await orm.em.findOne(
      Organization,
      'organization_id' in input
        ? { id: input.organization_id }
        : { slug: input.organization_slug },
    );
    // Organizations are public (their storefront is): naming an unknown one reveals nothing.
    if (!organization) throw resourceNotFound('Organization not found');
    const email = input.email.toLowerCase();
    await limitSubject(ctx, 'portalSignInEmail', `${organization.id} ${email}`);
    await startCustomerSignIn(temporal, {
      requestId: newId(),
      organizationId: organization.id,
      email,
      returnTo: input.return_to ?? null,
    });
    ctx.status = 202;
    ctx.body = {};
  });

  router.post('/authenticate', limit('portalSignInAuthenticate'), async (ctx) => {
    const { token } = parseBody(ctx, signInAuthenticateInput);
    const opened = await openSessionWithSignInLink(orm.em, token);
    if (!opened) {
      throw new AppError(
        'unauthenticated',
        'invalid_token',
        'This sign-in link is invalid, expired or already used. Ask for a new one.',
      );
    }
    ctx.body = signInSessionWire(opened, config.api.publicUrl);
  });

  return router;
}
