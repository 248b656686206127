import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { z } from 'zod';
import type { AppDependencies } from '../../api/dependencies.ts';
import { parseBody } from '../../api/validation.ts';
import { licenseKeyStatuses } from '../../db/entities/license-key.ts';
import { customerSessionTokenPrefix } from '../customer-sessions/service.ts';
import { bearerOf, callerOf, scope } from '../http/caller.ts';
import { sessionCustomerIdOf, sessionCustomerOf } from '../http/customer-session.ts';
import {
  idsParameter,
  listParameters,
  listRoute,
  pageParameters,
  valuesParameter,
} from '../http/listing.ts';
import { benefitBoundListParameters, portalGate } from '../http/portal.ts';
import { readIdParam } from '../http/request.ts';
import {
  licenseKeyActivateInput,
  licenseKeyActivationBaseWire,
  licenseKeyActivationWire,
  licenseKeyDeactivateInput,
  licenseKeyUpdateInput,
  licenseKeyValidateInput,
  licenseKeyWire,
  licenseKeyWithActivationsWire,
} from './schemas.ts';
import {
  activateLicenseKey,
  deactivateLicenseKey,
  getActivation,
  getLicenseKey,
  listLicenseKeys,
  liveActivations,
  updateLicenseKey,
  validateLicenseKey,
} from './service.ts';

/**
 * Validate, activate and deactivate, shared by the seller's API (`callerOrganization`: the
 * token's, which must be the body's) and the public customer-portal endpoints (null: the
 * body's organization scopes the key, no credentials needed). `guard` runs before each check;
 * `portalCustomer` is the customer of a portal session deactivating their own key's activation.
 */
function keyChecks(
  router: Router,
  { orm }: AppDependencies,
  callerOrganization: (ctx: Context) => string | null,
  guard: (check: 'validate' | 'activate' | 'deactivate') => Middleware[],
  portalCustomer: (ctx: Context) => string | null = () => null,
) {
  router.post('/validate', ...guard('validate'), async (ctx) => {
    const input = parseBody(ctx, licenseKeyValidateInput);
    const { key, activation } = await validateLicenseKey(orm.em, input, callerOrganization(ctx));
    ctx.body = {
      ...licenseKeyWire(key),
      activation: activation && licenseKeyActivationBaseWire(activation),
    };
  });

  router.post('/activate', ...guard('activate'), async (ctx) => {
    const input = parseBody(ctx, licenseKeyActivateInput);
    const { key, activation } = await activateLicenseKey(orm.em, input, callerOrganization(ctx));
    ctx.body = licenseKeyActivationWire(activation, key);
  });

  router.post('/deactivate', ...guard('deactivate'), async (ctx) => {
    const input = parseBody(ctx, licenseKeyDeactivateInput);
    await deactivateLicenseKey(orm.em, input, callerOrganization(ctx), portalCustomer(ctx));
    ctx.status = 204;
  });
}

const statusFilter = z.enum(licenseKeyStatuses);

/** The query of the license key list (documented by license_keys:list). */
export const licenseKeyListParameters = listParameters({
  page: pageParameters,
  benefitIds: idsParameter('benefit_id'),
  // Tollgate's own filters: Polar's list has none by customer or status.
  customerIds: idsParameter('customer_id'),
  statuses: valuesParameter('status', statusFilter),
  organizationIds: idsParameter('organization_id'),
});

/** /v1/license-keys: the organization's keys, their activations, and checks by key. */
export function licenseKeyRoutes(dependencies: AppDependencies): Router {
  const { orm } = dependencies;
  const router = new Router({ prefix: '/v1/license-keys' });

  router.get(
    '/',
    scope('license_keys:read'),
    listRoute({
      query: licenseKeyListParameters,
      list: ({ organizationId }, query) => listLicenseKeys(orm.em, { organizationId }, query),
      serialize: (keys) => keys.map(licenseKeyWire),
    }),
  );

  keyChecks(
    router,
    dependencies,
    (ctx) => callerOf(ctx).organizationId,
    () => [scope('license_keys:write')],
  );

  router.get('/:id', scope('license_keys:read'), async (ctx) => {
    const id = readIdParam(ctx);
    const owner = { organizationId: callerOf(ctx).organizationId };
    const key = await getLicenseKey(orm.em, owner, id);
    ctx.body = licenseKeyWithActivationsWire(key, await liveActivations(orm.em, key));
  });

  router.patch('/:id', scope('license_keys:write'), async (ctx) => {
    const id = readIdParam(ctx);
    const input = parseBody(ctx, licenseKeyUpdateInput);
    const key = await updateLicenseKey(orm.em, callerOf(ctx).organizationId, id, input);
    ctx.body = licenseKeyWire(key);
  });

  router.get('/:id/activations/:activation_id', scope('license_keys:read'), async (ctx) => {
    const id = readIdParam(ctx);
    const activationId = readIdParam(ctx, 'activation_id');
    const { key, activation } = await getActivation(
      orm.em,
      callerOf(ctx).organizationId,
      id,
      activationId,
    );
    ctx.body = licenseKeyActivationWire(activation, key);
  });

  return router;
}

/**
 * /v1/customer-portal/license-keys: a customer's own keys (customer session), and the public
 * validate, activate and deactivate that apps call with a key the customer typed in.
 */
export function customerPortalLicenseKeyRoutes(dependencies: AppDependencies): Router {
  const { orm } = dependencies;
  const router = new Router({ prefix: '/v1/customer-portal/license-keys' });
  const { session, limit, list } = portalGate(dependencies);

  // An app deactivating sends the key alone; the portal page sends its customer's session too,
  // and then the benefit decides whether customers may (`enable_customer_admin`).
  const withSession: Middleware = (ctx, next) =>
    bearerOf(ctx.get('authorization'))?.startsWith(customerSessionTokenPrefix)
      ? session(ctx, next)
      : next();
  keyChecks(
    router,
    dependencies,
    () => null,
    (check) =>
      check === 'validate'
        ? [limit('licenseKeyValidate')]
        : [limit('licenseKeyActivation'), ...(check === 'deactivate' ? [withSession] : [])],
    sessionCustomerIdOf,
  );

  router.get(
    '/',
    ...list({
      query: benefitBoundListParameters,
      list: (customer, query) => listLicenseKeys(orm.em, { customerId: customer.id }, query),
      serialize: (keys) => keys.map(licenseKeyWire),
    }),
  );

  router.get('/:id', limit('portalRead'), session, async (ctx) => {
    const id = readIdParam(ctx);
    const key = await getLicenseKey(orm.em, { customerId: sessionCustomerOf(ctx).id }, id);
    ctx.body = licenseKeyWithActivationsWire(key, await liveActivations(orm.em, key));
  });

  return router;
}
