import type { Order, OrderItem } from '../../db/entities/index.ts';
import { escapeHtml } from '../../domain/html.ts';
import { formatMoney } from '../../domain/money.ts';
import { readSignedToken, signToken } from '../../domain/signed-tokens.ts';

/** How long an invoice link opens the invoice (as S3's presigned URLs Polar hands out). */
export const invoiceLinkLifetimeMs = 60 * 60 * 1000;

const invoiceLinkPurpose = 'tollgate order invoice link';

/**
 * Where a generated invoice is read: the app serves it, and the link is its own grant (as an
 * S3 presigned URL would be), so it opens without a token, until it expires. A new link is
 * made each time the seller asks for the invoice.
 */
export function invoiceUrl(
  publicUrl: string,
  secret: string,
  orderId: string,
  now = Date.now(),
): string {
  const base = publicUrl.replace(/\/+$/, '');
  const token = signToken(secret, invoiceLinkPurpose, [orderId, now + invoiceLinkLifetimeMs]);
  return `${base}/v1/orders/${orderId}/invoice/document?token=${token}`;
}

/** An invoice link's token for `orderId`: valid, expired, or invalid (forged, another order's). */
export function checkInvoiceLink(
  secret: string,
  orderId: string,
  token: string,
  now = Date.now(),
): 'valid' | 'expired' | 'invalid' {
  const grant = readSignedToken(secret, invoiceLinkPurpose, token);
  if (!Array.isArray(grant)) return 'invalid';
  const [signedOrderId, expiresAt] = grant;
  if (signedOrderId !== orderId || typeof expiresAt !== 'number') return 'invalid';
  return expiresAt <= now ? 'expired' : 'valid';
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
