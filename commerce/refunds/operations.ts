import { idPath, type Operation, pageOf } from '../http/openapi.ts';
import { invoiceDocumentQuery, orderInvoiceWireSchema } from '../orders/schemas.ts';
import { refundListParameters } from './routes.ts';
import { refundCreateInput, refundWireSchema } from './schemas.ts';

const tag = 'Refunds';

/** The operations of refundRoutes (/v1/refunds). */
export const refundOperations: Operation[] = [
  {
    method: 'get',
    path: '/v1/refunds',
    operationId: 'refunds:list',
    summary: 'List refunds',
    tag,
    scopes: ['refunds:read', 'refunds:write'],
    query: refundListParameters.schema,
    response: { status: 200, schema: pageOf(refundWireSchema) },
  },
  {
    method: 'post',
    path: '/v1/refunds',
    operationId: 'refunds:create',
    summary: 'Refund part or all of an order (pending until its workflow settles it)',
    tag,
    scopes: ['refunds:write'],
    body: refundCreateInput,
    // 200, not 201: Polar's SDK reads a 201 as empty.
    response: { status: 200, schema: refundWireSchema },
    errors: [400, 404],
  },
  {
    method: 'get',
    path: '/v1/refunds/:id',
    operationId: 'refunds:get',
    summary: 'Get a refund (Tollgate’s own)',
    tag,
    scopes: ['refunds:read', 'refunds:write'],
    params: idPath,
    response: { status: 200, schema: refundWireSchema },
    errors: [404],
  },
  {
    method: 'get',
    path: '/v1/refunds/:id/credit-note',
    operationId: 'refunds:credit_note',
    summary: 'Get the signed link of a succeeded refund’s credit note (Tollgate’s own)',
    tag,
    scopes: ['refunds:read', 'refunds:write'],
    params: idPath,
    response: { status: 200, schema: orderInvoiceWireSchema },
    errors: [404],
  },
  {
    method: 'get',
    path: '/v1/refunds/:id/credit-note/document',
    operationId: 'refunds:credit_note_document',
    summary:
      'The credit note itself, opened from its signed link: HTML, or PDF with format=pdf or Accept: application/pdf',
    tag,
    auth: 'public',
    params: idPath,
    query: invoiceDocumentQuery,
    response: { status: 200, contentType: 'text/html' },
    errors: [404, 410],
  },
];
