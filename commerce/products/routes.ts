import Router from '@koa/router';
import type { AppDependencies } from '../../api/dependencies.ts';
import { parseBody } from '../../api/validation.ts';
import { callerOf, scope } from '../http/caller.ts';
import {
  booleanParameter,
  fieldParameter,
  idsParameter,
  listParameters,
  listRoute,
  metadataParameter,
  pageParameters,
  sortingParameter,
} from '../http/listing.ts';
import { ReadCache } from '../http/read-cache.ts';
import { parseCreateBody, readIdParam } from '../http/request.ts';
import {
  productBenefitsInput,
  productCreateInput,
  productListQuery,
  productSortFields,
  productUpdateInput,
} from './schemas.ts';
import {
  createProduct,
  getProduct,
  listProducts,
  serializeProducts,
  updateProduct,
  updateProductBenefits,
} from './service.ts';

/** The query of the product list (documented by products:list). */
export const productListParameters = listParameters({
  page: pageParameters,
  sorting: sortingParameter(productSortFields, '-created_at'),
  query: fieldParameter(productListQuery, 'query'),
  ids: idsParameter('id'),
  isArchived: booleanParameter('is_archived'),
  isRecurring: booleanParameter('is_recurring'),
  benefitIds: idsParameter('benefit_id'),
  metadata: metadataParameter,
  organizationIds: idsParameter('organization_id'),
});

/** /v1/products: the organization's products and their prices, benefits, medias and fields. */
export function productRoutes({ orm, config, changes }: AppDependencies): Router {
  const router = new Router({ prefix: '/v1/products' });
  const { publicUrl } = config.api;
  // Catalogs are read far more than written: answers are kept per organization, as JSON bytes,
  // until any change to its catalog is announced (db/change-notifications.ts).
  const answers = new ReadCache<Buffer>(changes, 'catalog', {
    maxAgeMs: 5 * 60_000,
    maxKeysPerScope: 100,
    maxScopes: 1000,
  });
  const cachedJson = (organizationId: string, key: string, answer: () => Promise<unknown>) =>
    answers.read(organizationId, key, async () => Buffer.from(JSON.stringify(await answer())));

  router.get(
    '/',
    scope('products:read'),
    listRoute({
      query: productListParameters,
      list: (caller, query) => listProducts(orm.em, caller.organizationId, query),
      serialize: (products) => serializeProducts(orm.em, products, publicUrl),
      cached: (ctx, caller, answer) =>
        cachedJson(caller.organizationId, `list?${ctx.querystring}`, answer),
    }),
  );

  router.post('/', scope('products:write'), async (ctx) => {
    const caller = callerOf(ctx);
    const input = parseCreateBody(ctx, productCreateInput, caller);
    ctx.body = await createProduct(orm.em, caller.organizationId, input, publicUrl);
    ctx.status = 201;
  });

  router.get('/:id', scope('products:read'), async (ctx) => {
    const { organizationId } = callerOf(ctx);
    const id = readIdParam(ctx);
    ctx.type = 'json';
    ctx.body = await cachedJson(organizationId, `get ${id}`, async () => {
      const product = await getProduct(orm.em, organizationId, id);
      const [wire] = await serializeProducts(orm.em, [product], publicUrl);
      return wire;
    });
  });

  router.patch('/:id', scope('products:write'), async (ctx) => {
    const id = readIdParam(ctx);
    const input = parseBody(ctx, productUpdateInput);
    ctx.body = await updateProduct(orm.em, callerOf(ctx).organizationId, id, input, publicUrl);
  });

  router.post('/:id/benefits', scope('products:write'), async (ctx) => {
    const id = readIdParam(ctx);
    const { benefits } = parseBody(ctx, productBenefitsInput);
    const organizationId = callerOf(ctx).organizationId;
    ctx.body = await updateProductBenefits(orm.em, organizationId, id, benefits, publicUrl);
  });

  return router;
}
