import Router from '@koa/router';
import type { AppDependencies } from '../../api/dependencies.ts';
import { parseQuery } from '../../api/validation.ts';
import { callerOf, scope } from '../http/caller.ts';
import { sessionCustomerOf } from '../http/customer-session.ts';
import { listRoute, queryValues, readPage, readQueryIds, readSorting } from '../http/listing.ts';
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
      read: (ctx) => ({
        page: readPage(ctx),
        sorting: readSorting(ctx, customerMeterSortFields, '-modified_at'),
        customerIds: readQueryIds(ctx, 'customer_id'),
        externalCustomerIds: queryValues(ctx, 'external_customer_id'),
        meterIds: readQueryIds(ctx, 'meter_id'),
      }),
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

/** /v1/customer-portal/meters: the session customer's own standing on each meter. */
export function customerPortalMeterRoutes(dependencies: AppDependencies): Router {
  const { orm } = dependencies;
  const router = new Router({ prefix: '/v1/customer-portal' });
  const { session, limit, list } = portalGate(dependencies);

  router.get(
    '/meters/',
    ...list({
      read: (ctx) => ({
        page: readPage(ctx),
        sorting: readSorting(ctx, customerCustomerMeterSortFields, '-modified_at'),
        meterIds: readQueryIds(ctx, 'meter_id'),
        query: parseQuery(ctx, meterListQuery).query || undefined,
      }),
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
