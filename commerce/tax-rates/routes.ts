import Router from '@koa/router';
import type { AppDependencies } from '../../api/dependencies.ts';
import { parseBody } from '../../api/validation.ts';
import { callerOf, scope } from '../http/caller.ts';
import {
  fieldParameter,
  idsParameter,
  listParameters,
  listRoute,
  pageParameters,
  sortingParameter,
} from '../http/listing.ts';
import { parseCreateBody, readIdParam } from '../http/request.ts';
import {
  taxRateCreateInput,
  taxRateListQuery,
  taxRateSortFields,
  taxRateUpdateInput,
  taxRateWire,
} from './schemas.ts';
import {
  createTaxRate,
  deleteTaxRate,
  getTaxRate,
  listTaxRates,
  updateTaxRate,
} from './service.ts';

/** The query of the tax rate list (documented by tax-rates:list). */
export const taxRateListParameters = listParameters({
  country: fieldParameter(taxRateListQuery, 'country'),
  sorting: sortingParameter(taxRateSortFields, 'country'),
  page: pageParameters,
  organizationIds: idsParameter('organization_id'),
});

/** /v1/tax-rates (Tollgate's own, issue 22): the seller's tax rates, per country and subdivision. */
export function taxRateRoutes({ orm }: AppDependencies): Router {
  const router = new Router({ prefix: '/v1/tax-rates' });

  router.get(
    '/',
    scope('organizations:read'),
    listRoute({
      query: taxRateListParameters,
      list: (caller, query) => listTaxRates(orm.em, caller.organizationId, query),
      serialize: (rates) => rates.map(taxRateWire),
    }),
  );

  router.post('/', scope('organizations:write'), async (ctx) => {
    const caller = callerOf(ctx);
    const input = parseCreateBody(ctx, taxRateCreateInput, caller);
    const rate = await createTaxRate(orm.em, caller.organizationId, input);
    ctx.status = 201;
    ctx.body = taxRateWire(rate);
  });

  router.get('/:id', scope('organizations:read'), async (ctx) => {
    const id = readIdParam(ctx);
    ctx.body = taxRateWire(await getTaxRate(orm.em, callerOf(ctx).organizationId, id));
  });

  router.patch('/:id', scope('organizations:write'), async (ctx) => {
    const id = readIdParam(ctx);
    const input = parseBody(ctx, taxRateUpdateInput);
    const rate = await updateTaxRate(orm.em, callerOf(ctx).organizationId, id, input);
    ctx.body = taxRateWire(rate);
  });

  router.delete('/:id', scope('organizations:write'), async (ctx) => {
    const id = readIdParam(ctx);
    await deleteTaxRate(orm.em, callerOf(ctx).organizationId, id);
    ctx.status = 204;
  });

  return router;
}
