import { z } from 'zod';
import { customerOrderWireSchema } from '../customer-portal/schemas.ts';
import { idPath, type Operation, pageOf } from '../http/openapi.ts';
import { orderExportQuery } from './export.ts';
import { customerOrderListParameters, orderListParameters } from './routes.ts';
import {
  confirmRetryPaymentInput,
  invoiceDocumentQuery,
  orderInvoiceWireSchema,
  orderPaymentStatusWireSchema,
  orderUpdateInput,
  orderWireSchema,
  paymentConfirmationWireSchema,
} from './schemas.ts';

const read = ['orders:read', 'orders:write'] as const;
const write = ['orders:write'] as const;

/** The operations of orderRoutes (/v1/orders). */
export const orderOperations: Operation[] = [
  {
    method: 'get',
    path: '/v1/orders',
    operationId: 'orders:list',
    summary: 'List orders',
    tag: 'Orders',
    scopes: read,
    query: orderListParameters.schema,
    response: { status: 200, schema: pageOf(orderWireSchema) },
  },
  {
    method: 'get',
    path: '/v1/orders/export',
    operationId: 'orders:export',
    summary: 'Export the orders made in a range of UTC days as a CSV file for accounting',
    tag: 'Orders',
    scopes: read,
    query: orderExportQuery,
    response: { status: 200, contentType: 'text/csv' },
  },
  {
    method: 'get',
    path: '/v1/orders/:id',
    operationId: 'orders:get',
    summary: 'Get an order',
    tag: 'Orders',
    scopes: read,
    params: idPath,
    response: { status: 200, schema: orderWireSchema },
    errors: [404],
  },
  {
    method: 'patch',
    path: '/v1/orders/:id',
    operationId: 'orders:update',
    summary: 'Correct the name and address an order is billed to',
    tag: 'Orders',
    scopes: write,
    params: idPath,
    body: orderUpdateInput,
    response: { status: 200, schema: orderWireSchema },
    errors: [404],
  },
  {
    method: 'post',
    path: '/v1/orders/:id/invoice',
    operationId: 'orders:generate_invoice',
    summary: 'Make out the invoice of a paid order',
    tag: 'Orders',
    scopes: write,
    params: idPath,
    response: { status: 202, schema: z.null() },
    // 422 MissingInvoiceBillingDetails or NotPaidOrder.
    errors: [404, 409, 422],
  },
  {
    method: 'get',
    path: '/v1/orders/:id/invoice',
    operationId: 'orders:invoice',
    summary: 'Get the signed link of an order’s invoice',
    tag: 'Orders',
    scopes: read,
    params: idPath,
    response: { status: 200, schema: orderInvoiceWireSchema },
    errors: [404],
  },
  {
    method: 'get',
    path: '/v1/orders/:id/invoice/document',
    operationId: 'orders:invoice_document',
    summary:
      'The invoice itself, opened from its signed link: HTML, or PDF with format=pdf or Accept: application/pdf',
    tag: 'Orders',
    auth: 'public',
    params: idPath,
    query: invoiceDocumentQuery,
    response: { status: 200, contentType: 'text/html' },
    errors: [404, 410],
  },
];

/** The operations of customerPortalOrderRoutes (/v1/customer-portal/orders). */
export const customerPortalOrderOperations: Operation[] = [
  {
    method: 'get',
    path: '/v1/customer-portal/orders',
    operationId: 'customer_portal:orders:list',
    summary: 'List the customer’s orders',
    tag: 'Customer Portal',
    auth: 'customer',
    query: customerOrderListParameters.schema,
    response: { status: 200, schema: pageOf(customerOrderWireSchema) },
  },
  {
    method: 'get',
    path: '/v1/customer-portal/orders/:id',
    operationId: 'customer_portal:orders:get',
    summary: 'Get one of the customer’s orders',
    tag: 'Customer Portal',
    auth: 'customer',
    params: idPath,
    response: { status: 200, schema: customerOrderWireSchema },
    errors: [404],
  },
  {
    method: 'patch',
    path: '/v1/customer-portal/orders/:id',
    operationId: 'customer_portal:orders:update',
    summary: 'Correct the name and address the customer’s order is billed to',
    tag: 'Customer Portal',
    auth: 'customer',
    params: idPath,
    body: orderUpdateInput,
    response: { status: 200, schema: customerOrderWireSchema },
    errors: [404],
  },
  {
    method: 'post',
    path: '/v1/customer-portal/orders/:id/invoice',
    operationId: 'customer_portal:orders:generate_invoice',
    summary: 'Make out the invoice of the customer’s paid order',
    tag: 'Customer Portal',
    auth: 'customer',
    params: idPath,
    response: { status: 202, schema: z.null() },
    // 422 MissingInvoiceBillingDetails or NotPaidOrder.
    errors: [404, 409, 422],
  },
  {
    method: 'get',
    path: '/v1/customer-portal/orders/:id/invoice',
    operationId: 'customer_portal:orders:invoice',
    summary: 'Get the signed link of the customer’s invoice',
    tag: 'Customer Portal',
    auth: 'customer',
    params: idPath,
    response: { status: 200, schema: orderInvoiceWireSchema },
    errors: [404],
  },
  {
    method: 'get',
    path: '/v1/customer-portal/orders/:id/payment-status',
    operationId: 'customer_portal:orders:get_payment_status',
    summary: 'How the payment of the customer’s order stands',
    tag: 'Customer Portal',
    auth: 'customer',
    params: idPath,
    response: { status: 200, schema: orderPaymentStatusWireSchema },
    errors: [404],
  },
  {
    method: 'post',
    path: '/v1/customer-portal/orders/:id/confirm-payment',
    operationId: 'customer_portal:orders:confirm_retry_payment',
    summary: 'Pay a failed renewal now, with a new card or the saved one',
    tag: 'Customer Portal',
    auth: 'customer',
    params: idPath,
    body: confirmRetryPaymentInput,
    response: { status: 200, schema: paymentConfirmationWireSchema },
    // 409 PaymentAlreadyInProgress, 422 OrderNotEligibleForRetry.
    errors: [404, 409, 422],
  },
];
