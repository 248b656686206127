import Router from '@koa/router';
import type { AppDependencies } from '../../api/dependencies.ts';
import { parseBody, parseQuery } from '../../api/validation.ts';
import { callerOf, scope } from '../http/caller.ts';
import {
  listResource,
  organizationFilterMatches,
  readMetadataFilter,
  readPage,
  readQueryBoolean,
  readQueryIds,
  readSorting,
} from '../http/listing.ts';
import { readIdParam, refuseForeignOrganization } from '../http/wire.ts';
import {
  productBenefitsInput,
  productCreateInput,
  productListQuery,
  productUpdateInput,
} from './schemas.ts';
import {
  createProduct,
  getProduct,
  listProducts,
  productSortFields,
  serializeProducts,
  updateProduct,
  updateProductBenefits,
} from './service.ts';

/** /v1/products: the organization's products and their prices, benefits, medias and fields. */
export function productRoutes({ orm }: AppDependencies): Router {
  const router = new Router({ prefix: '/v1/products' });

  router.get('/', scope('products:read'), async (ctx) => {
    const caller = callerOf(ctx);
    const page = readPage(ctx);
    const sorting = readSorting(ctx, productSortFields, '-created_at');
    const { query } = parseQuery(ctx, productListQuery);
    const filters = {
      ids: readQueryIds(ctx, 'id'),
      query,
      isArchived: readQueryBoolean(ctx, 'is_archived'),
      isRecurring: readQueryBoolean(ctx, 'is_recurring'),
      benefitIds: readQueryIds(ctx, 'benefit_id'),
      metadata: readMetadataFilter(ctx),
    };
    if (!organizationFilterMatches(ctx, caller)) {
      ctx.body = listResource([], 0, page);
      return;
    }
    const [products, total] = await listProducts(
      orm.em,
      caller.organizationId,
      filters,
      sorting,
      page,
    );
    ctx.body = listResource(await serializeProducts(orm.em, products), total, page);
  });

  router.post('/', scope('products:write'), async (ctx) => {
    const caller = callerOf(ctx);
    const input = parseBody(ctx, productCreateInput);
    refuseForeignOrganization(input, caller);
    ctx.body = await createProduct(orm.em, caller.organizationId, input);
    ctx.status = 201;
  });

  router.get('/:id', scope('products:read'), async (ctx) => {
    const product = await getProduct(orm.em, callerOf(ctx).organizationId, readIdParam(ctx));
    const [wire] = await serializeProducts(orm.em, [product]);
    ctx.body = wire;
  });

  router.patch('/:id', scope('products:write'), async (ctx) => {
    const id = readIdParam(ctx);
    const input = parseBody(ctx, productUpdateInput);
    ctx.body = await updateProduct(orm.em, callerOf(ctx).organizationId, id, input);
  });

  router.post('/:id/benefits', scope('products:write'), async (ctx) => {
    const id = readIdParam(ctx);
    const { benefits } = parseBody(ctx, productBenefitsInput);
    ctx.body = await updateProductBenefits(orm.em, callerOf(ctx).organizationId, id, benefits);
  });

  return router;
}
