import Router from '@koa/router';
import type { AppDependencies } from '../../api/dependencies.ts';
import { parseBody } from '../../api/validation.ts';
import type { CheckoutLink } from '../../db/entities/index.ts';
import { callerOf, scope } from '../http/caller.ts';
import {
  idsParameter,
  listParameters,
  listRoute,
  pageParameters,
  sortingParameter,
} from '../http/listing.ts';
import { readIdParam } from '../http/request.ts';
import {
  checkoutLinkCreateInput,
  checkoutLinkSortFields,
  checkoutLinkUpdateInput,
} from './schemas.ts';
import {
  createCheckoutLink,
  deleteCheckoutLink,
  getCheckoutLink,
  listCheckoutLinks,
  serializeCheckoutLinks,
  updateCheckoutLink,
} from './service.ts';

/** The query of the checkout link list (documented by checkout-links:list). */
export const checkoutLinkListParameters = listParameters({
  page: pageParameters,
  productIds: idsParameter('product_id'),
  sorting: sortingParameter(checkoutLinkSortFields, 'created_at'),
  organizationIds: idsParameter('organization_id'),
});

/**
 * /v1/checkout-links: shareable links that each open a new checkout for their products. The
 * redirect they point at (`/v1/checkout-links/{client_secret}/redirect`) belongs to checkouts.
 */
export function checkoutLinkRoutes({ orm, config }: AppDependencies): Router {
  const router = new Router({ prefix: '/v1/checkout-links' });
  const { publicUrl } = config.api;
  const serializeOne = async (link: CheckoutLink) => {
    const [wire] = await serializeCheckoutLinks(orm.em, [link], publicUrl);
    return wire;
  };

  router.get(
    '/',
    scope('checkout_links:read'),
    listRoute({
      query: checkoutLinkListParameters,
      list: (caller, query) => listCheckoutLinks(orm.em, caller.organizationId, query),
      serialize: (links) => serializeCheckoutLinks(orm.em, links, publicUrl),
    }),
  );

  router.post('/', scope('checkout_links:write'), async (ctx) => {
    const input = parseBody(ctx, checkoutLinkCreateInput);
    const link = await createCheckoutLink(orm.em, callerOf(ctx).organizationId, input);
    ctx.status = 201;
    ctx.body = await serializeOne(link);
  });

  router.get('/:id', scope('checkout_links:read'), async (ctx) => {
    const id = readIdParam(ctx);
    ctx.body = await serializeOne(await getCheckoutLink(orm.em, callerOf(ctx).organizationId, id));
  });

  router.patch('/:id', scope('checkout_links:write'), async (ctx) => {
    const id = readIdParam(ctx);
    const input = parseBody(ctx, checkoutLinkUpdateInput);
    const link = await updateCheckoutLink(orm.em, callerOf(ctx).organizationId, id, input);
    ctx.body = await serializeOne(link);
  });

  router.delete('/:id', scope('checkout_links:write'), async (ctx) => {
    const id = readIdParam(ctx);
    await deleteCheckoutLink(orm.em, callerOf(ctx).organizationId, id);
    ctx.status = 204;
  });

  return router;
}
