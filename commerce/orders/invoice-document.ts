import PDFDocument from 'pdfkit';
import type { NormalisedAddress } from '../../domain/addresses.ts';
import { type BillingInterval, nextBillingPeriod } from '../../domain/billing-periods.ts';
import { escapeHtml } from '../../domain/html.ts';
import { formatMoney } from '../../domain/money.ts';
import type { InvoiceSettings } from '../../domain/organization-settings.ts';
import { reverseChargeNotice, type TaxLine, taxLineName, taxLineRate } from '../../domain/tax.ts';

/**
 * The one template of invoices and credit notes: a pure view built from the order (or refund)
 * and its organization, rendered as HTML or as PDF. Amounts stay integer minor units until a
 * renderer formats them.
 */

/** A seller's or buyer's block: who, where, under which tax id. */
export interface InvoiceParty {
  name: string;
  addressLines: string[];
  taxId: string | null;
}

export interface InvoiceLine {
  description: string;
  /** Seats for a seat-based price, else 1. */
  quantity: number;
  /** The quantity counts seats: printed `5 seats`, not a bare `5`. */
  perSeat: boolean;
  amount: number;
  taxAmount: number;
}

/** The quantity as the line prints it: `1`, or `5 seats` for a seat-based plan. */
export const quantityText = ({ quantity, perSeat }: InvoiceLine) =>
  perSeat ? `${quantity} ${quantity === 1 ? 'seat' : 'seats'}` : String(quantity);

/** One of the order's tax lines as the invoice prints it. */
export interface InvoiceTaxLine {
  /** `VAT DE (DE)`: the rate's name and its jurisdiction. */
  name: string;
  /** `19%`, or `19% incl.` for a tax carved out of the price. */
  rate: string;
  taxableAmount: number;
  taxAmount: number;
  reverseCharge: boolean;
}

export interface InvoiceTotal {
  label: string;
  amount: number;
  /** The amount the document comes to, printed in the brand colour. */
  grand?: boolean;
}

/** An organization's logo, read from its own uploaded files (never fetched from a URL). */
export interface InvoiceLogo {
  bytes: Buffer;
  mimeType: 'image/png' | 'image/jpeg';
}

export interface InvoiceView {
  title: 'Invoice' | 'Credit note';
  number: string;
  /** The invoice a credit note corrects. */
  correctsInvoice: string | null;
  issuedOn: string;
  billingPeriod: { start: string; end: string } | null;
  currency: string;
  seller: InvoiceParty;
  buyer: InvoiceParty;
  lines: InvoiceLine[];
  /** The order's tax lines (none on a credit note, which credits an amount, not the lines). */
  taxLines: InvoiceTaxLine[];
  totals: InvoiceTotal[];
  /** `Paid`, `Paid, partially refunded`, `Refunded`, …, with the card and the date. */
  status: { label: string; method: string | null; on: string | null };
  logo: InvoiceLogo | null;
  brandColor: string;
  footer: string | null;
}

/** What an invoice is built from: the order's rows as the database holds them. */
export interface InvoiceSource {
  order: {
    invoiceNumber: string;
    status: string;
    billingReason: string;
    billingName?: string | null | undefined;
    billingAddress?: NormalisedAddress | null | undefined;
    subtotalAmount: number;
    discountAmount: number;
    taxAmount: number;
    totalAmount: number;
    fromBalanceAmount: number;
    taxLines: readonly TaxLine[];
    currency: string;
    createdAt: Date;
    /** The subscription period it pays for, as recorded when it was made (db/entities/order.ts). */
    billingPeriodStart?: Date | null | undefined;
    billingPeriodEnd?: Date | null | undefined;
  };
  /** Its lines; `seats`: what a seat-based line billed (null for other lines). */
  items: {
    label: string;
    amount: number;
    taxAmount: number;
    proration: boolean;
    seats?: number | null | undefined;
  }[];
  subscription: { billingAnchor: Date; recurringInterval: BillingInterval } | null;
  organization: { name: string; invoiceSettings: InvoiceSettings };
  buyerTaxId: string | null;
  /** The succeeded payment: its card (`methodMetadata`) and when it went through. */
  payment: { methodMetadata: Record<string, unknown>; paidAt: Date } | null;
  logo: InvoiceLogo | null;
}

/** The colour of headings and the total when the seller chose none. */
const defaultBrandColor = '#1f2937';

const isoDay = (date: Date) => date.toISOString().slice(0, 10);

export function addressLines(address: NormalisedAddress | null | undefined): string[] {
  if (!address) return [];
  return [
    address.line1,
    address.line2,
    [address.postalCode, address.city].filter(Boolean).join(' '),
    address.state,
    address.country,
  ].filter((line): line is string => Boolean(line));
}

/** `Visa •••• 4242`, from the card Stripe told the payment was made with. */
export function cardOf(methodMetadata: Record<string, unknown>): string | null {
  const { brand, last4 } = methodMetadata;
  if (typeof brand !== 'string' || typeof last4 !== 'string') return null;
  return `${brand.charAt(0).toUpperCase()}${brand.slice(1)} •••• ${last4}`;
}

const paidLabels: Record<string, string> = {
  paid: 'Paid',
  partially_refunded: 'Paid, partially refunded',
  refunded: 'Paid, refunded',
};

function sellerOf(organization: InvoiceSource['organization']): InvoiceParty {
  const settings = organization.invoiceSettings;
  return {
    name: settings.legalName ?? organization.name,
    addressLines: addressLines(settings.address),
    taxId: settings.taxId,
  };
}

/**
 * The period a subscription order pays for: the one recorded with the order (by the
 * subscription's clock, so a test clock's renewal bills its simulated period). An order made
 * before periods were recorded pays from its day to the next whole interval after the
 * subscription's anchor. Proration orders (`subscription_update`) pay for no period.
 */
function billingPeriodOf(source: InvoiceSource): InvoiceView['billingPeriod'] {
  const { order, subscription } = source;
  const periodic = ['subscription_create', 'subscription_cycle'].includes(order.billingReason);
  if (!periodic) return null;
  if (order.billingPeriodStart && order.billingPeriodEnd) {
    return { start: isoDay(order.billingPeriodStart), end: isoDay(order.billingPeriodEnd) };
  }
  if (!subscription) return null;
  const { start, end } = nextBillingPeriod(
    subscription.billingAnchor,
    subscription.recurringInterval,
    order.createdAt,
  );
  return { start: isoDay(start), end: isoDay(end) };
}

const brandingOf = (settings: InvoiceSettings) => ({
  brandColor: settings.brandColor ?? defaultBrandColor,
  footer: settings.footer,
});

const invoiceTaxLine = (line: TaxLine): InvoiceTaxLine => ({
  name: taxLineName(line),
  rate: taxLineRate(line),
  taxableAmount: line.taxableAmount,
  taxAmount: line.taxAmount,
  reverseCharge: line.reverseCharge,
});

const reverseCharged = (view: InvoiceView) => view.taxLines.some((line) => line.reverseCharge);

/** The invoice of an order: its lines, discount, tax, balance used, total, and how it was paid. */
export function invoiceView(source: InvoiceSource): InvoiceView {
  const { order, payment } = source;
  const totals: InvoiceTotal[] = [
    { label: 'Subtotal', amount: order.subtotalAmount },
    ...(order.discountAmount ? [{ label: 'Discount', amount: -order.discountAmount }] : []),
    { label: 'Tax', amount: order.taxAmount },
    { label: 'Total', amount: order.totalAmount, grand: true },
    ...(order.fromBalanceAmount
      ? [
          { label: 'Balance used', amount: -order.fromBalanceAmount },
          { label: 'Charged', amount: order.totalAmount - order.fromBalanceAmount },
        ]
      : []),
  ];
  return {
    title: 'Invoice',
    number: order.invoiceNumber,
    correctsInvoice: null,
    issuedOn: isoDay(order.createdAt),
    billingPeriod: billingPeriodOf(source),
    currency: order.currency,
    seller: sellerOf(source.organization),
    buyer: {
      name: order.billingName ?? '',
      addressLines: addressLines(order.billingAddress),
      taxId: source.buyerTaxId,
    },
    lines: source.items.map((item) => ({
      description: item.label,
      quantity: item.seats ?? 1,
      perSeat: item.seats != null,
      amount: item.amount,
      taxAmount: item.taxAmount,
    })),
    taxLines: order.taxLines.map(invoiceTaxLine),
    totals,
    status: {
      label: paidLabels[order.status] ?? 'Unpaid',
      method: payment && cardOf(payment.methodMetadata),
      on: payment && isoDay(payment.paidAt),
    },
    logo: source.logo,
    ...brandingOf(source.organization.invoiceSettings),
  };
}

/** What a credit note is built from: the order's invoice source and the refund it documents. */
export interface CreditNoteSource extends InvoiceSource {
  refund: {
    creditNoteNumber: string;
    amount: number;
    taxAmount: number;
    reason: string;
    settledAt: Date;
  };
}

/** The credit note of a succeeded refund: what was given back on which invoice, to which card. */
export function creditNoteView(source: CreditNoteSource): InvoiceView {
  const { refund, order, payment } = source;
  const invoice = invoiceView(source);
  return {
    ...invoice,
    title: 'Credit note',
    number: refund.creditNoteNumber,
    correctsInvoice: order.invoiceNumber,
    issuedOn: isoDay(refund.settledAt),
    lines: [
      {
        description: `Refund (${refund.reason.replaceAll('_', ' ')}) of invoice ${order.invoiceNumber}`,
        quantity: 1,
        perSeat: false,
        amount: refund.amount,
        taxAmount: refund.taxAmount,
      },
    ],
    taxLines: [],
    totals: [
      { label: 'Subtotal', amount: refund.amount },
      { label: 'Tax', amount: refund.taxAmount },
      { label: 'Total credited', amount: refund.amount + refund.taxAmount, grand: true },
    ],
    status: {
      label: 'Refunded',
      method: payment && cardOf(payment.methodMetadata),
      on: isoDay(refund.settledAt),
    },
  };
}

const money = (view: InvoiceView, amount: number) => formatMoney(amount, view.currency);

/** `Paid by Visa •••• 4242 on 2026-11-27`. */
const statusLine = ({ status }: InvoiceView) =>
  `${status.label}${status.method ? ` by ${status.method}` : ''}${status.on ? ` on ${status.on}` : ''}`;

/** The document's heading facts, one `label: value` each. */
function factsOf(view: InvoiceView): [string, string][] {
  return [
    [`${view.title} number`, view.number],
    ...(view.correctsInvoice
      ? [['Corrects invoice', view.correctsInvoice] as [string, string]]
      : []),
    ['Issue date', view.issuedOn],
    ...(view.billingPeriod
      ? [
          ['Billing period', `${view.billingPeriod.start} – ${view.billingPeriod.end}`] as [
            string,
            string,
          ],
        ]
      : []),
  ];
}

const partyLines = (party: InvoiceParty) => [
  party.name,
  ...party.addressLines,
  ...(party.taxId ? [`Tax ID: ${party.taxId}`] : []),
];

/** The view as a standalone HTML page (inline styles, the logo inlined as data). */
export function invoiceHtml(view: InvoiceView): string {
  const color = escapeHtml(view.brandColor);
  const logo = view.logo
    ? `<img alt="" style="max-height:60px" src="data:${view.logo.mimeType};base64,${view.logo.bytes.toString('base64')}">`
    : '';
  const party = (heading: string, lines: string[]) =>
    `<div><h2 style="color:${color};font-size:1em">${heading}</h2><p>${lines.map(escapeHtml).join('<br>')}</p></div>`;
  const rows = view.lines
    .map(
      (line) =>
        `<tr><td>${escapeHtml(line.description)}</td><td>${quantityText(line)}</td><td>${money(view, line.taxAmount)}</td><td>${money(view, line.amount)}</td></tr>`,
    )
    .join('');
  const totals = view.totals
    .map(
      (total) =>
        `<tr${total.grand ? ` style="color:${color};font-weight:bold"` : ''}><th colspan="3">${escapeHtml(total.label)}</th><td>${money(view, total.amount)}</td></tr>`,
    )
    .join('');
  const taxRows = view.taxLines
    .map(
      (line) =>
        `<tr><td>${escapeHtml(line.name)}</td><td>${escapeHtml(line.rate)}</td><td>${money(view, line.taxableAmount)}</td><td>${money(view, line.taxAmount)}</td></tr>`,
    )
    .join('');
  const taxTable = taxRows
    ? `<table><thead><tr><th>Tax</th><th>Rate</th><th>Taxable amount</th><th>Tax amount</th></tr></thead><tbody>${taxRows}</tbody></table>`
    : '';
  const title = `${view.title} ${escapeHtml(view.number)}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>
<body style="font-family:sans-serif">
${logo}
<h1 style="color:${color}">${title}</h1>
<p>${factsOf(view)
    .map(([label, value]) => `${escapeHtml(label)}: ${escapeHtml(value)}`)
    .join('<br>')}</p>
${party('From', partyLines(view.seller))}
${party('Billed to', partyLines(view.buyer))}
<table><thead><tr><th>Description</th><th>Quantity</th><th>Tax</th><th>Amount</th></tr></thead>
<tbody>${rows}</tbody><tfoot>${totals}</tfoot></table>
${taxTable}
${reverseCharged(view) ? `<p><strong>${reverseChargeNotice}</strong></p>` : ''}
<p><strong>${escapeHtml(statusLine(view))}</strong></p>
${view.footer ? `<footer>${escapeHtml(view.footer)}</footer>` : ''}
</body></html>
`;
}

/** Column x positions and widths of the PDF's line table (A4, 50pt margins). */
const columns = {
  description: { x: 50, width: 250 },
  quantity: { x: 300, width: 65 },
  tax: { x: 365, width: 80 },
  amount: { x: 445, width: 100 },
};

/** The view as an A4 PDF, drawn with the standard Helvetica fonts. */
export function invoicePdf(view: InvoiceView): Promise<Buffer> {
  const document = new PDFDocument({
    size: 'A4',
    margin: 50,
    info: { Title: `${view.title} ${view.number}`, Author: view.seller.name },
  });
  const chunks: Buffer[] = [];
  document.on('data', (chunk: Buffer) => chunks.push(chunk));
  const finished = new Promise<Buffer>((resolve, reject) => {
    document.on('end', () => resolve(Buffer.concat(chunks)));
    document.on('error', reject);
  });
  drawPdf(document, view);
  document.end();
  return finished;
}

function drawPdf(document: PDFKit.PDFDocument, view: InvoiceView) {
  const right = { width: 495, align: 'right' as const };
  if (view.logo) document.image(view.logo.bytes, 50, 50, { fit: [150, 60] });
  document
    .font('Helvetica-Bold')
    .fontSize(20)
    .fillColor(view.brandColor)
    .text(`${view.title} ${view.number}`, 50, 50, right);
  document.font('Helvetica').fontSize(10).fillColor('black').moveDown(0.5);
  for (const [label, value] of factsOf(view)) document.text(`${label}: ${value}`, right);

  const partiesTop = 140;
  const drawParty = (heading: string, party: InvoiceParty, x: number) => {
    document.font('Helvetica-Bold').fillColor(view.brandColor).text(heading, x, partiesTop);
    document.font('Helvetica').fillColor('black');
    for (const line of partyLines(party)) document.text(line, x, undefined, { width: 230 });
  };
  drawParty('From', view.seller, 50);
  const sellerBottom = document.y;
  drawParty('Billed to', view.buyer, 315);
  let y = Math.max(sellerBottom, document.y) + 30;

  const row = (cells: Record<keyof typeof columns, string>, bold = false) => {
    document.font(bold ? 'Helvetica-Bold' : 'Helvetica');
    const heights = (Object.keys(columns) as (keyof typeof columns)[]).map((key) => {
      const { x, width } = columns[key];
      const align = key === 'description' ? 'left' : 'right';
      document.text(cells[key], x, y, { width, align });
      return document.y - y;
    });
    y += Math.max(...heights) + 6;
  };
  document.fillColor(view.brandColor);
  row({ description: 'Description', quantity: 'Qty', tax: 'Tax', amount: 'Amount' }, true);
  document.fillColor('black');
  for (const line of view.lines) {
    row({
      description: line.description,
      quantity: quantityText(line),
      tax: money(view, line.taxAmount),
      amount: money(view, line.amount),
    });
  }
  y += 6;
  for (const total of view.totals) {
    document.fillColor(total.grand ? view.brandColor : 'black');
    row(
      { description: '', quantity: '', tax: total.label, amount: money(view, total.amount) },
      total.grand,
    );
  }
  if (view.taxLines.length) {
    y += 14;
    document.fillColor(view.brandColor);
    row({ description: 'Tax', quantity: 'Rate', tax: 'Taxable', amount: 'Tax amount' }, true);
    document.fillColor('black');
    for (const line of view.taxLines) {
      row({
        description: line.name,
        quantity: line.rate,
        tax: money(view, line.taxableAmount),
        amount: money(view, line.taxAmount),
      });
    }
  }
  if (reverseCharged(view)) {
    document.font('Helvetica-Bold').text(reverseChargeNotice, 50, y + 6, { width: 495 });
    y = document.y;
  }
  document
    .fillColor('black')
    .font('Helvetica-Bold')
    .text(statusLine(view), 50, y + 20);
  if (view.footer) {
    document
      .font('Helvetica')
      .fontSize(8)
      .fillColor('#6b7280')
      .text(view.footer, 50, undefined, { width: 495 });
  }
}
