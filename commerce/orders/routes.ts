import Router from '@koa/router';
import { z } from 'zod';
import { authSettings } from '../../accounts/settings.ts';
import type { AppDependencies } from '../../api/dependencies.ts';
import { parseBody, parseQuery } from '../../api/validation.ts';
import { Order, OrderItem } from '../../db/entities/index.ts';
import { commerceError, resourceNotFound } from '../errors.ts';
import { callerOf, scope } from '../http/caller.ts';
import {
  listRoute,
  readMetadataFilter,
  readPage,
  readQueryIds,
  readQueryList,
  readSorting,
} from '../http/listing.ts';
import { publicRateLimit } from '../http/rate-limits.ts';
import { readIdParam } from '../http/request.ts';
import { checkInvoiceLink, invoiceDocument, invoiceUrl } from './invoice.ts';
import { orderSortFields, orderUpdateInput, productBillingTypeFilter } from './schemas.ts';
import { generateInvoice, getOrder, listOrders, serializeOrders, updateOrder } from './service.ts';

const invoiceDocumentQuery = z.object({ token: z.string().min(1) }).loose();

/** /v1/orders: what customers bought, paid for, and the invoices made out for it. */
export function orderRoutes(dependencies: AppDependencies): Router {
  const { orm, config } = dependencies;
  const limit = publicRateLimit(dependencies);
  const router = new Router({ prefix: '/v1/orders' });
  const { publicUrl } = config.api;
  const { secret } = authSettings(config);

  const serializeOne = async (order: Order) => {
    const [wire] = await serializeOrders(orm.em, [order]);
    return wire;
  };

  router.get(
    '/',
    scope('orders:read'),
    listRoute({
      read: (ctx) => ({
        page: readPage(ctx),
        sorting: readSorting(ctx, orderSortFields, '-created_at'),
        productBillingType: readQueryList(ctx, 'product_billing_type', productBillingTypeFilter)[0],
        productIds: readQueryIds(ctx, 'product_id'),
        customerIds: readQueryIds(ctx, 'customer_id'),
        checkoutIds: readQueryIds(ctx, 'checkout_id'),
        discountIds: readQueryIds(ctx, 'discount_id'),
        metadata: readMetadataFilter(ctx),
      }),
      list: (caller, query) => listOrders(orm.em, caller.organizationId, query),
      serialize: (orders) => serializeOrders(orm.em, orders),
    }),
  );

  router.get('/:id', scope('orders:read'), async (ctx) => {
    const id = readIdParam(ctx);
    ctx.body = await serializeOne(await getOrder(orm.em, callerOf(ctx).organizationId, id));
  });

  router.patch('/:id', scope('orders:write'), async (ctx) => {
    const id = readIdParam(ctx);
    const input = parseBody(ctx, orderUpdateInput);
    ctx.body = await serializeOne(
      await updateOrder(orm.em, callerOf(ctx).organizationId, id, input),
    );
  });

  // Generating is immediate here; Polar answers 202 and a JSON body (null) either way.
  router.post('/:id/invoice', scope('orders:write'), async (ctx) => {
    const id = readIdParam(ctx);
    await generateInvoice(orm.em, callerOf(ctx).organizationId, id);
    ctx.status = 202;
    ctx.type = 'json';
    ctx.body = 'null';
  });

  router.get('/:id/invoice', scope('orders:read'), async (ctx) => {
    const id = readIdParam(ctx);
    const order = await getOrder(orm.em, callerOf(ctx).organizationId, id);
    if (!order.isInvoiceGenerated) throw resourceNotFound('Invoice not found');
    ctx.body = { url: invoiceUrl(publicUrl, secret, order.id) };
  });

  // The invoice itself, opened from its signed link without an access token.
  router.get('/:id/invoice/document', limit('download'), async (ctx) => {
    const id = readIdParam(ctx);
    const link = checkInvoiceLink(secret, id, parseQuery(ctx, invoiceDocumentQuery).token);
    if (link === 'invalid') throw resourceNotFound('Invoice not found');
    if (link === 'expired') throw commerceError('ExpiredInvoiceLink');
    const em = orm.em.fork();
    const order = await em.findOne(
      Order,
      { id, isInvoiceGenerated: true },
      { populate: ['organization'] },
    );
    if (!order) throw resourceNotFound('Invoice not found');
    const items = await em.find(OrderItem, { order: id }, { orderBy: [{ createdAt: 'asc' }] });
    ctx.type = 'html';
    ctx.body = invoiceDocument(order, items, order.organization.name);
  });

  return router;
}
