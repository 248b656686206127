import Router from '@koa/router';
import type { AppDependencies } from '../../api/dependencies.ts';
import { parseBody, parseQuery } from '../../api/validation.ts';
import { callerOf, scope } from '../http/caller.ts';
import {
  listPage,
  readMetadataFilter,
  readPage,
  readQueryBoolean,
  readSorting,
} from '../http/listing.ts';
import { parseCreateBody, readIdParam } from '../http/wire.ts';
import {
  meterCreateInput,
  meterListQuery,
  meterSortFields,
  meterUpdateInput,
  meterWire,
} from './schemas.ts';
import { createMeter, getMeter, listMeters, updateMeter } from './service.ts';

/** /v1/meters: the organization's usage meters (what counts, and how it adds up). */
export function meterRoutes({ orm }: AppDependencies): Router {
  const router = new Router({ prefix: '/v1/meters' });

  router.get('/', scope('meters:read'), async (ctx) => {
    const caller = callerOf(ctx);
    const { query } = parseQuery(ctx, meterListQuery);
    const page = readPage(ctx);
    const sorting = readSorting(ctx, meterSortFields, 'name');
    const filter = {
      query,
      isArchived: readQueryBoolean(ctx, 'is_archived'),
      metadata: readMetadataFilter(ctx),
    };
    ctx.body = await listPage(
      ctx,
      caller,
      page,
      () => listMeters(orm.em, caller.organizationId, filter, sorting, page),
      (meters) => meters.map(meterWire),
    );
  });

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

  return router;
}
