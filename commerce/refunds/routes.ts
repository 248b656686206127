import Router from '@koa/router';
import { authSettings } from '../../accounts/settings.ts';
import type { AppDependencies } from '../../api/dependencies.ts';
import { parseBody, parseQuery } from '../../api/validation.ts';
import { startRefund } from '../../processes/starters.ts';
import { commerceError, resourceNotFound } from '../errors.ts';
import { fileStorage } from '../files/service.ts';
import { callerOf, scope } from '../http/caller.ts';
import {
  booleanParameter,
  idsParameter,
  listParameters,
  listRoute,
  pageParameters,
  sortingParameter,
} from '../http/listing.ts';
import { publicRateLimit } from '../http/rate-limits.ts';
import { readIdParam } from '../http/request.ts';
import { checkCreditNoteLink, creditNoteUrl, loadCreditNote } from '../orders/invoice.ts';
import { answerInvoiceDocument } from '../orders/routes.ts';
import { invoiceDocumentQuery } from '../orders/schemas.ts';
import { refundCreateInput, refundSortFields, refundWire } from './schemas.ts';
import { createRefund, getRefund, listRefunds } from './service.ts';

/** The query of the refund list (documented by refunds:list). */
export const refundListParameters = listParameters({
  ids: idsParameter('id'),
  orderIds: idsParameter('order_id'),
  subscriptionIds: idsParameter('subscription_id'),
  customerIds: idsParameter('customer_id'),
  succeeded: booleanParameter('succeeded'),
  sorting: sortingParameter(refundSortFields, '-created_at'),
  page: pageParameters,
  organizationIds: idsParameter('organization_id'),
});

/** /v1/refunds: money given back on orders, each carried out by its workflow (§4.13). */
export function refundRoutes(dependencies: AppDependencies): Router {
  const { orm, temporal, config } = dependencies;
  const router = new Router({ prefix: '/v1/refunds' });
  const limit = publicRateLimit(dependencies);
  const { publicUrl } = config.api;
  const { secret } = authSettings(config);
  const invoiceContext = { storage: fileStorage(config.files), publicUrl };
  const startWorkflow = (refundId: string) => startRefund(temporal, refundId);

  router.get(
    '/',
    scope('refunds:read'),
    listRoute({
      query: refundListParameters,
      list: (caller, query) => listRefunds(orm.em, caller.organizationId, query),
      serialize: (refunds) => refunds.map(refundWire),
    }),
  );

  // Pending until its workflow settles it; 200, not 201: Polar's SDK reads a 201 as empty.
  router.post('/', scope('refunds:write'), async (ctx) => {
    const caller = callerOf(ctx);
    const input = parseBody(ctx, refundCreateInput);
    ctx.body = refundWire(await createRefund(orm.em, caller.organizationId, input, startWorkflow));
  });

  // Tollgate's own: Polar's API has no single-refund read.
  router.get('/:id', scope('refunds:read'), async (ctx) => {
    const id = readIdParam(ctx);
    ctx.body = refundWire(await getRefund(orm.em, callerOf(ctx).organizationId, id));
  });

  // Tollgate's own: the signed link of a succeeded refund's credit note, as orders' invoices.
  router.get('/:id/credit-note', scope('refunds:read'), async (ctx) => {
    const id = readIdParam(ctx);
    const refund = await getRefund(orm.em, callerOf(ctx).organizationId, id);
    if (!refund.creditNoteNumber) throw resourceNotFound('Credit note not found');
    ctx.body = { url: creditNoteUrl(publicUrl, secret, refund.id) };
  });

  // The credit note itself, opened from its signed link without an access token.
  router.get('/:id/credit-note/document', limit('download'), async (ctx) => {
    const id = readIdParam(ctx);
    const link = checkCreditNoteLink(secret, id, parseQuery(ctx, invoiceDocumentQuery).token);
    if (link === 'invalid') throw resourceNotFound('Credit note not found');
    if (link === 'expired') throw commerceError('ExpiredInvoiceLink');
    const creditNote = await loadCreditNote(orm.em.fork(), invoiceContext, id);
    if (!creditNote) throw resourceNotFound('Credit note not found');
    await answerInvoiceDocument(ctx, creditNote);
  });

  return router;
}
