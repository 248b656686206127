import Router from '@koa/router';
import type { Context } from 'koa';
import { authSettings } from '../../accounts/settings.ts';
import type { AppDependencies } from '../../api/dependencies.ts';
import { parseBody, parseQuery } from '../../api/validation.ts';
import type { Order } from '../../db/entities/index.ts';
import { refusalFromWorkflowFailure } from '../../processes/activity-errors.ts';
import { updateSubscription } from '../../processes/starters.ts';
import { retryRenewalUpdate } from '../../processes/subscription-messages.ts';
import { customerOrderSortFields } from '../customer-portal/schemas.ts';
import { commerceError, resourceNotFound } from '../errors.ts';
import { fileStorage } from '../files/service.ts';
import { callerOf, scope } from '../http/caller.ts';
import { answerCsv } from '../http/csv.ts';
import { sessionCustomerOf } from '../http/customer-session.ts';
import {
  fieldParameter,
  idsParameter,
  listParameters,
  listRoute,
  mapParameter,
  metadataParameter,
  organizationFilterMatches,
  pageParameters,
  sortingParameter,
  valuesParameter,
} from '../http/listing.ts';
import { portalGate } from '../http/portal.ts';
import { publicRateLimit } from '../http/rate-limits.ts';
import { readIdParam } from '../http/request.ts';
import {
  checkOrderExportRange,
  orderExportHeader,
  orderExportQuery,
  orderExportRows,
} from './export.ts';
import { checkInvoiceLink, invoiceUrl, loadInvoice } from './invoice.ts';
import { type InvoiceView, invoiceHtml, invoicePdf } from './invoice-document.ts';
import {
  customerInvoicedOrder,
  customerOrderPaymentStatus,
  generateCustomerInvoice,
  getCustomerOrder,
  listCustomerOrders,
  retryableCustomerOrder,
  serializeCustomerOrders,
  updateCustomerOrder,
} from './portal.ts';
import {
  confirmRetryPaymentInput,
  customerOrderListQuery,
  invoiceDocumentQuery,
  orderSortFields,
  orderUpdateInput,
  paymentConfirmationWire,
  productBillingTypeFilter,
} from './schemas.ts';
import { generateInvoice, getOrder, listOrders, serializeOrders, updateOrder } from './service.ts';

/** Generating is immediate here; Polar answers 202 and a JSON body (null) either way. */
function answerInvoiceGenerated(ctx: Context) {
  ctx.status = 202;
  ctx.type = 'json';
  ctx.body = 'null';
}

/**
 * An invoice or credit note as its link asks: the PDF, as an attachment named by the document's
 * number, for `?format=pdf` or `Accept: application/pdf`; else the HTML page.
 */
export async function answerInvoiceDocument(ctx: Context, view: InvoiceView) {
  const { format } = parseQuery(ctx, invoiceDocumentQuery);
  const wantsPdf = format
    ? format === 'pdf'
    : ctx.accepts('html', 'application/pdf') === 'application/pdf';
  ctx.vary('Accept');
  if (!wantsPdf) {
    ctx.type = 'html';
    // The page is whole in itself: its inline styles (the brand colour) and its logo inlined as
    // data are all it may use, which the API's policy for pages (style-src 'self') would block.
    ctx.set(
      'Content-Security-Policy',
      "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox",
    );
    ctx.body = invoiceHtml(view);
    return;
  }
  ctx.type = 'application/pdf';
  ctx.attachment(`${view.number}.pdf`);
  ctx.body = await invoicePdf(view);
}

/** The query of the order list (documented by orders:list). */
export const orderListParameters = listParameters({
  page: pageParameters,
  sorting: sortingParameter(orderSortFields, '-created_at'),
  productBillingType: mapParameter(
    valuesParameter('product_billing_type', productBillingTypeFilter),
    ([first]) => first,
  ),
  productIds: idsParameter('product_id'),
  customerIds: idsParameter('customer_id'),
  checkoutIds: idsParameter('checkout_id'),
  discountIds: idsParameter('discount_id'),
  metadata: metadataParameter,
  organizationIds: idsParameter('organization_id'),
});

/** /v1/orders: what customers bought, paid for, and the invoices made out for it. */
export function orderRoutes(dependencies: AppDependencies): Router {
  const { orm, config } = dependencies;
  const limit = publicRateLimit(dependencies);
  const router = new Router({ prefix: '/v1/orders' });
  const { publicUrl } = config.api;
  const { secret } = authSettings(config);
  const invoiceContext = { storage: fileStorage(config.files), publicUrl };

  const serializeOne = async (order: Order) => {
    const [wire] = await serializeOrders(orm.em, [order]);
    return wire;
  };

  router.get(
    '/',
    scope('orders:read'),
    listRoute({
      query: orderListParameters,
      list: (caller, query) => listOrders(orm.em, caller.organizationId, query),
      serialize: (orders) => serializeOrders(orm.em, orders),
    }),
  );

  // Tollgate's accounting export, a CSV file; registered before `/:id`, which would take
  // `export` for an id.
  router.get('/export', scope('orders:read'), async (ctx) => {
    const caller = callerOf(ctx);
    const range = parseQuery(ctx, orderExportQuery);
    checkOrderExportRange(range);
    const rows = organizationFilterMatches(ctx, caller)
      ? orderExportRows(orm.em.fork(), caller.organizationId, range)
      : [];
    answerCsv(ctx, 'orders.csv', orderExportHeader, rows);
  });

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

  router.post('/:id/invoice', scope('orders:write'), async (ctx) => {
    const id = readIdParam(ctx);
    await generateInvoice(orm.em, callerOf(ctx).organizationId, id);
    answerInvoiceGenerated(ctx);
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
    const invoice = await loadInvoice(orm.em.fork(), invoiceContext, id);
    if (!invoice) throw resourceNotFound('Invoice not found');
    await answerInvoiceDocument(ctx, invoice);
  });

  return router;
}

/** The query of the portal's order list (documented by customer_portal:orders:list). */
export const customerOrderListParameters = listParameters({
  page: pageParameters,
  sorting: sortingParameter(customerOrderSortFields, '-created_at'),
  query: fieldParameter(customerOrderListQuery, 'query'),
  organizationIds: idsParameter('organization_id'),
  productIds: idsParameter('product_id'),
  productBillingTypes: valuesParameter('product_billing_type', productBillingTypeFilter),
  subscriptionIds: idsParameter('subscription_id'),
});

/**
 * /v1/customer-portal/orders: the customer's own orders, and what they do with one: correct its
 * billing details, have its invoice
 * made out and read, follow its payment, and pay a failed renewal now — through the
 * subscription's workflow, as finance's retry, with a new card that then pays the renewals.
 */
export function customerPortalOrderRoutes(dependencies: AppDependencies): Router {
  const { orm, config, temporal } = dependencies;
  const router = new Router({ prefix: '/v1/customer-portal/orders' });
  const { session, limit, list } = portalGate(dependencies);
  const { publicUrl } = config.api;
  const { secret } = authSettings(config);

  const serializeOne = async (order: Order) => {
    const [wire] = await serializeCustomerOrders(orm.em, [order], publicUrl);
    return wire;
  };

  router.get(
    '/',
    ...list({
      query: customerOrderListParameters,
      list: (customer, query) => listCustomerOrders(orm.em, customer, query),
      serialize: (orders) => serializeCustomerOrders(orm.em, orders, publicUrl),
    }),
  );

  router.get('/:id', limit('portalRead'), session, async (ctx) => {
    const id = readIdParam(ctx);
    ctx.body = await serializeOne(await getCustomerOrder(orm.em, sessionCustomerOf(ctx), id));
  });

  router.patch('/:id', limit('portalWrite'), session, async (ctx) => {
    const id = readIdParam(ctx);
    const input = parseBody(ctx, orderUpdateInput);
    ctx.body = await serializeOne(
      await updateCustomerOrder(orm.em, sessionCustomerOf(ctx), id, input),
    );
  });

  router.post('/:id/invoice', limit('portalWrite'), session, async (ctx) => {
    const id = readIdParam(ctx);
    await generateCustomerInvoice(orm.em, sessionCustomerOf(ctx), id);
    answerInvoiceGenerated(ctx);
  });

  router.get('/:id/invoice', limit('portalRead'), session, async (ctx) => {
    const id = readIdParam(ctx);
    const order = await customerInvoicedOrder(orm.em, sessionCustomerOf(ctx), id);
    ctx.body = { url: invoiceUrl(publicUrl, secret, order.id) };
  });

  router.get('/:id/payment-status', limit('portalRead'), session, async (ctx) => {
    const id = readIdParam(ctx);
    ctx.body = await customerOrderPaymentStatus(orm.em, sessionCustomerOf(ctx), id);
  });

  // A payment attempt: counted as the checkout's confirm is, where stolen cards are tried.
  router.post('/:id/confirm-payment', limit('checkoutConfirm'), session, async (ctx) => {
    const id = readIdParam(ctx);
    const input = parseBody(ctx, confirmRetryPaymentInput);
    const customer = sessionCustomerOf(ctx);
    const { order, subscription } = await retryableCustomerOrder(orm.em, customer, id);
    const paymentMethod = input.confirmation_token_id ?? input.payment_method_id ?? null;
    try {
      const outcome = await updateSubscription(temporal, subscription.id, retryRenewalUpdate, {
        orderId: order.id,
        paymentMethod,
      });
      ctx.body = paymentConfirmationWire(outcome);
    } catch (error) {
      throw refusalFromWorkflowFailure(error) ?? error;
    }
  });

  return router;
}
