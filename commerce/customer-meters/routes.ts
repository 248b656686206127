import Router from '@koa/router';
import type { AppDependencies } from '../../api/dependencies.ts';
import { callerOf, scope } from '../http/caller.ts';
import { sessionCustomerOf } from '../http/customer-session.ts';
import {
  fieldParameter,
  idsParameter,
  listParameters,
  listRoute,
  mapParameter,
  pageParameters,
  sortingParameter,
  textsParameter,
} from '../http/listing.ts';
import { portalGate } from '../http/portal.ts';
import { readIdParam } from '../http/request.ts';
import { meterListQuery } from '../meters/schemas.ts';
import {
  getCustomerCustomerMeter,
  listCustomerCustomerMeters,
  serializeCustomerCustomerMeters,
} from './portal.ts';
import {
  type CustomerMeterRow,
  customerCustomerMeterSortFields,
  customerMeterSortFields,
  customerMeterWire,
} from './schemas.ts';
import { embeddedOf, getCustomerMeter, listCustomerMeters } from './service.ts';

/** The query of the customer meter list (documented by customer_meters:list). */
export const customerMeterListParameters = listParameters({
  page: pageParameters,
  sorting: sortingParameter(customerMeterSortFields, '-modified_at'),
  customerIds: idsParameter('customer_id'),
  externalCustomerIds: textsParameter('external_customer_id'),
  meterIds: idsParameter('meter_id'),
  organizationIds: idsParameter('organization_id'),
});

/** /v1/customer-meters: each customer's consumed and credited units and balance per meter. */
export function customerMeterRoutes({ orm }: AppDependencies): Router {
  const router = new Router({ prefix: '/v1/customer-meters' });

  const serialize = async (rows: CustomerMeterRow[]) => {
    const { customers, meters } = await embeddedOf(orm.em, rows);
    return rows.flatMap((row) => {
      const customer = customers.get(row.customer_id);
      const meter = meters.get(row.meter_id);
      return customer && meter ? [customerMeterWire(row, customer, meter)] : [];
    });
  };

  router.get(
    '/',
    scope('customer_meters:read'),
    listRoute({
      query: customerMeterListParameters,
      list: (caller, query) => listCustomerMeters(orm.em, caller.organizationId, query),
      serialize,
    }),
  );

  router.get('/:id', scope('customer_meters:read'), async (ctx) => {
    const id = readIdParam(ctx);
    const row = await getCustomerMeter(orm.em, callerOf(ctx).organizationId, id);
    const [wire] = await serialize([row]);
    ctx.body = wire;
  });

  return router;
}

/** The query of the portal's meter list (documented by customer_portal:customer_meters:list). */
export const customerCustomerMeterListParameters = listParameters({
  page: pageParameters,
  sorting: sortingParameter(customerCustomerMeterSortFields, '-modified_at'),
  meterIds: idsParameter('meter_id'),
  query: mapParameter(fieldParameter(meterListQuery, 'query'), (text) => text || undefined),
});

/** /v1/customer-portal/meters: the session customer's own standing on each meter. */
export function customerPortalMeterRoutes(dependencies: AppDependencies): Router {
  const { orm } = dependencies;
  const router = new Router({ prefix: '/v1/customer-portal' });
  const { session, limit, list } = portalGate(dependencies);

  router.get(
    '/meters/',
    ...list({
      query: customerCustomerMeterListParameters,
      list: (customer, query) => listCustomerCustomerMeters(orm.em, customer, query),
      serialize: (rows) => serializeCustomerCustomerMeters(orm.em, rows),
    }),
  );

  router.get('/meters/:id', limit('portalRead'), session, async (ctx) => {
    const id = readIdParam(ctx);
    const row = await getCustomerCustomerMeter(orm.em, sessionCustomerOf(ctx), id);
    const [wire] = await serializeCustomerCustomerMeters(orm.em, [row]);
    ctx.body = wire;
  });

  return router;
}
