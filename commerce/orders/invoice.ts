import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Order, OrderItem } from '../../db/entities/index.ts';
import { escapeHtml } from '../../domain/html.ts';
import { formatMoney } from '../../domain/money.ts';

// A key of its own for invoice links, so nothing else signed with the auth secret passes as one.
const invoiceKey = (secret: string) =>
  createHmac('sha256', secret).update('tollgate order invoice').digest();

const signatureOf = (secret: string, orderId: string) =>
  createHmac('sha256', invoiceKey(secret)).update(orderId).digest('base64url');

/**
 * Where a generated invoice is read: the app serves it, and the link is its own grant (as an
 * S3 presigned URL would be), so it opens without a token.
 */
export function invoiceUrl(publicUrl: string, secret: string, orderId: string): string {
  const base = publicUrl.replace(/\/+$/, '');
  return `${base}/v1/orders/${orderId}/invoice/document?signature=${signatureOf(secret, orderId)}`;
}

export function invoiceSignatureValid(secret: string, orderId: string, signature: string): boolean {
  const expected = Buffer.from(signatureOf(secret, orderId));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The invoice of a paid order as a small HTML document: seller, buyer, lines and totals. */
export function invoiceDocument(order: Order, items: OrderItem[], sellerName: string): string {
  const address = order.billingAddress;
  const addressLines = address
    ? [
        address.line1,
        address.line2,
        [address.postalCode, address.city].filter(Boolean).join(' '),
        address.state,
        address.country,
      ].filter((line): line is string => Boolean(line))
    : [];
  const rows = items
    .map(
      (item) =>
        `<tr><td>${escapeHtml(item.label)}</td><td>${formatMoney(item.amount, order.currency)}</td></tr>`,
    )
    .join('');
  const totals: [string, number][] = [
    ['Subtotal', order.subtotalAmount],
    ['Discount', -order.discountAmount],
    ['Tax', order.taxAmount],
    ['Total', order.totalAmount],
  ];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Invoice ${escapeHtml(order.invoiceNumber)}</title></head>
<body>
<h1>Invoice ${escapeHtml(order.invoiceNumber)}</h1>
<p>From ${escapeHtml(sellerName)}, ${order.createdAt.toISOString().slice(0, 10)}</p>
<p>Billed to ${escapeHtml(order.billingName ?? '')}<br>${addressLines.map(escapeHtml).join('<br>')}</p>
<table><tbody>${rows}</tbody><tfoot>${totals
    .map(
      ([label, amount]) =>
        `<tr><th>${label}</th><td>${formatMoney(amount, order.currency)}</td></tr>`,
    )
    .join('')}</tfoot></table>
</body></html>
`;
}
