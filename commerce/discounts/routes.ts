import Router from '@koa/router';
import type { AppDependencies } from '../../api/dependencies.ts';
import { parseBody } from '../../api/validation.ts';
import type { Discount } from '../../db/entities/index.ts';
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
  discountCreateInput,
  discountListQuery,
  discountSortFields,
  discountUpdateInput,
} from './schemas.ts';
import {
  createDiscount,
  deleteDiscount,
  getDiscount,
  listDiscounts,
  serializeDiscounts,
  updateDiscount,
} from './service.ts';

/** The query of the discount list (documented by discounts:list). */
export const discountListParameters = listParameters({
  query: fieldParameter(discountListQuery, 'query'),
  sorting: sortingParameter(discountSortFields, '-created_at'),
  page: pageParameters,
  organizationIds: idsParameter('organization_id'),
});

/** /v1/discounts: amounts or percentages off, by code at checkout or named by the API. */
export function discountRoutes({ orm }: AppDependencies): Router {
  const router = new Router({ prefix: '/v1/discounts' });

  /** One discount as answered, with its products. */
  const serializeOne = async (discount: Discount) => {
    const [wire] = await serializeDiscounts(orm.em, [discount]);
    return wire;
  };

  router.get(
    '/',
    scope('discounts:read'),
    listRoute({
      query: discountListParameters,
      list: (caller, query) => listDiscounts(orm.em, caller.organizationId, query),
      serialize: (discounts) => serializeDiscounts(orm.em, discounts),
    }),
  );

  router.post('/', scope('discounts:write'), async (ctx) => {
    const caller = callerOf(ctx);
    const input = parseCreateBody(ctx, discountCreateInput, caller);
    const discount = await createDiscount(orm.em, caller.organizationId, input);
    ctx.status = 201;
    ctx.body = await serializeOne(discount);
  });

  router.get('/:id', scope('discounts:read'), async (ctx) => {
    const id = readIdParam(ctx);
    ctx.body = await serializeOne(await getDiscount(orm.em, callerOf(ctx).organizationId, id));
  });

  router.patch('/:id', scope('discounts:write'), async (ctx) => {
    const id = readIdParam(ctx);
    const input = parseBody(ctx, discountUpdateInput);
    ctx.body = await serializeOne(
      await updateDiscount(orm.em, callerOf(ctx).organizationId, id, input),
    );
  });

  router.delete('/:id', scope('discounts:write'), async (ctx) => {
    const id = readIdParam(ctx);
    await deleteDiscount(orm.em, callerOf(ctx).organizationId, id);
    ctx.status = 204;
  });

  return router;
}
