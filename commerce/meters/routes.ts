import Router from '@koa/router';
import { z } from 'zod';
import type { AppDependencies } from '../../api/dependencies.ts';
import { parseBody, parseQuery } from '../../api/validation.ts';
import { invalidFields } from '../errors.ts';
import { callerOf, scope } from '../http/caller.ts';
import {
  booleanParameter,
  fieldParameter,
  idsParameter,
  listParameters,
  listRoute,
  metadataParameter,
  pageParameters,
  readMetadataFilter,
  readQueryIds,
  readQueryList,
  sortingParameter,
} from '../http/listing.ts';
import { parseCreateBody, readIdParam } from '../http/request.ts';
import { meterQuantities, periodFitsInterval } from './quantities.ts';
import {
  meterCreateInput,
  meterListQuery,
  meterQuantitiesQuery,
  meterQuantitiesWire,
  meterSortFields,
  meterUpdateInput,
  meterWire,
} from './schemas.ts';
import { createMeter, getMeter, listMeters, updateMeter } from './service.ts';

const externalCustomerId = z.string().min(1);

/** The query of the meter list (documented by meters:list). */
export const meterListParameters = listParameters({
  query: fieldParameter(meterListQuery, 'query'),
  page: pageParameters,
  sorting: sortingParameter(meterSortFields, 'name'),
  isArchived: booleanParameter('is_archived'),
  metadata: metadataParameter,
  organizationIds: idsParameter('organization_id'),
});

/** /v1/meters: the organization's usage meters (what counts, and how it adds up). */
export function meterRoutes({ orm }: AppDependencies): Router {
  const router = new Router({ prefix: '/v1/meters' });

  router.get(
    '/',
    scope('meters:read'),
    listRoute({
      query: meterListParameters,
      list: (caller, query) => listMeters(orm.em, caller.organizationId, query),
      serialize: (meters) => meters.map(meterWire),
    }),
  );

  router.post('/', scope('meters:write'), async (ctx) => {
    const caller = callerOf(ctx);
    const input = parseCreateBody(ctx, meterCreateInput, caller);
    ctx.status = 201;
    ctx.body = meterWire(await createMeter(orm.em, caller.organizationId, input));
  });

  router.get('/:id', scope('meters:read'), async (ctx) => {
    const id = readIdParam(ctx);
    ctx.body = meterWire(await getMeter(orm.em, callerOf(ctx).organizationId, id));
  });

  router.patch('/:id', scope('meters:write'), async (ctx) => {
    const id = readIdParam(ctx);
    const input = parseBody(ctx, meterUpdateInput);
    ctx.body = meterWire(await updateMeter(orm.em, callerOf(ctx).organizationId, id, input));
  });

  router.get('/:id/quantities', scope('meters:read'), async (ctx) => {
    const id = readIdParam(ctx);
    const query = parseQuery(ctx, meterQuantitiesQuery);
    const customerIds = readQueryIds(ctx, 'customer_id');
    const externalCustomerIds = readQueryList(ctx, 'external_customer_id', externalCustomerId);
    const metadata = readMetadataFilter(ctx);
    const meter = await getMeter(orm.em, callerOf(ctx).organizationId, id);
    if (!periodFitsInterval(query.start_timestamp, query.end_timestamp, query.interval)) {
      throw invalidFields([
        {
          loc: ['query'],
          msg: 'The interval is too small for the given date range. Use a larger interval or reduce the date range.',
          type: 'value_error',
        },
      ]);
    }
    const quantities = await meterQuantities(orm.em, meter, {
      start: query.start_timestamp,
      end: query.end_timestamp,
      interval: query.interval,
      customerIds,
      externalCustomerIds,
      metadata,
      customerAggregation: query.customer_aggregation_function,
    });
    ctx.body = meterQuantitiesWire(quantities);
  });

  return router;
}
