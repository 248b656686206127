import type { EntityManager } from '@mikro-orm/postgresql';
import {
  Customer,
  Order,
  OrderItem,
  type Organization,
  Payment,
  Refund,
  StoredFile,
  Subscription,
} from '../../db/entities/index.ts';
import { isUuid } from '../../db/ids.ts';
import { invoiceSettingsOf } from '../../domain/organization-settings.ts';
import { readSignedToken, signToken } from '../../domain/signed-tokens.ts';
import type { FileStorage } from '../../integrations/files/storage.ts';
import { filesBaseUrl } from '../files/schemas.ts';
import {
  type CreditNoteSource,
  creditNoteView,
  type InvoiceLogo,
  type InvoiceSource,
  type InvoiceView,
  invoiceView,
} from './invoice-document.ts';

/** How long an invoice link opens the invoice (as S3's presigned URLs Polar hands out). */
export const invoiceLinkLifetimeMs = 60 * 60 * 1000;

const invoiceLinkPurpose = 'tollgate order invoice link';
const creditNoteLinkPurpose = 'tollgate refund credit note link';

type LinkCheck = 'valid' | 'expired' | 'invalid';

const signedLink = (secret: string, purpose: string, id: string, now: number) =>
  signToken(secret, purpose, [id, now + invoiceLinkLifetimeMs]);

function checkSignedLink(secret: string, purpose: string, id: string, token: string, now: number) {
  const grant = readSignedToken(secret, purpose, token);
  if (!Array.isArray(grant)) return 'invalid';
  const [signedId, expiresAt] = grant;
  if (signedId !== id || typeof expiresAt !== 'number') return 'invalid';
  return expiresAt <= now ? 'expired' : 'valid';
}

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
  const token = signedLink(secret, invoiceLinkPurpose, orderId, now);
  return `${base}/v1/orders/${orderId}/invoice/document?token=${token}`;
}

/** An invoice link's token for `orderId`: valid, expired, or invalid (forged, another order's). */
export function checkInvoiceLink(
  secret: string,
  orderId: string,
  token: string,
  now = Date.now(),
): LinkCheck {
  return checkSignedLink(secret, invoiceLinkPurpose, orderId, token, now);
}

/** Where a refund's credit note is read: a signed link like the invoice's, as long-lived. */
export function creditNoteUrl(
  publicUrl: string,
  secret: string,
  refundId: string,
  now = Date.now(),
): string {
  const base = publicUrl.replace(/\/+$/, '');
  const token = signedLink(secret, creditNoteLinkPurpose, refundId, now);
  return `${base}/v1/refunds/${refundId}/credit-note/document?token=${token}`;
}

/** A credit note link's token for `refundId`: valid, expired, or invalid. */
export function checkCreditNoteLink(
  secret: string,
  refundId: string,
  token: string,
  now = Date.now(),
): LinkCheck {
  return checkSignedLink(secret, creditNoteLinkPurpose, refundId, token, now);
}

/** The largest logo printed: a bigger file is left out rather than read into memory. */
const maxLogoBytes = 1024 * 1024;
const logoTypes = new Set(['image/png', 'image/jpeg']);

/**
 * The organization's logo when its URL is one of its own uploaded images on this API
 * (`/v1/files/public/<id>/…`), read from the file storage; any other URL is left out, never
 * fetched.
 */
async function logoOf(
  em: EntityManager,
  storage: FileStorage,
  publicUrl: string,
  organization: Organization,
): Promise<InvoiceLogo | null> {
  const { logoUrl } = invoiceSettingsOf(organization);
  const publicFiles = `${filesBaseUrl(publicUrl)}public/`;
  if (!logoUrl?.startsWith(publicFiles)) return null;
  const [id] = logoUrl.slice(publicFiles.length).split('/');
  if (!id || !isUuid(id)) return null;
  const file = await em.findOne(StoredFile, {
    id,
    organization,
    isUploaded: true,
    deletedAt: null,
    mimeType: { $in: [...logoTypes] },
    size: { $lte: maxLogoBytes },
  });
  const content = file && (await storage.read(file.path));
  if (!file || !content) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of content.stream) chunks.push(chunk as Buffer);
  return { bytes: Buffer.concat(chunks), mimeType: file.mimeType as InvoiceLogo['mimeType'] };
}

/** Where invoice documents read what they print beyond the database: the logo's storage. */
export interface InvoiceContext {
  storage: FileStorage;
  publicUrl: string;
}

/** Everything an order's invoice prints, read from the database (and the logo from storage). */
async function invoiceSourceOf(
  em: EntityManager,
  context: InvoiceContext,
  order: Order,
): Promise<InvoiceSource> {
  await em.populate(order, ['organization']);
  const organization = order.organization;
  const [items, customer, subscription, payment, logo] = await Promise.all([
    em.find(OrderItem, { order }, { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] }),
    em.findOne(Customer, { id: order.customer.id }),
    order.subscription ? em.findOne(Subscription, { id: order.subscription.id }) : null,
    em.findOne(Payment, { order, status: 'succeeded' }, { orderBy: { createdAt: 'desc' } }),
    logoOf(em, context.storage, context.publicUrl, organization),
  ]);
  return {
    order,
    items,
    subscription,
    organization: { name: organization.name, invoiceSettings: invoiceSettingsOf(organization) },
    buyerTaxId: customer?.taxId?.[0] ?? null,
    payment: payment && {
      methodMetadata: payment.methodMetadata,
      paidAt: payment.modifiedAt ?? payment.createdAt,
    },
    logo,
  };
}

/** The invoice of an order whose invoice was generated, or null when there is none. */
export async function loadInvoice(
  em: EntityManager,
  context: InvoiceContext,
  orderId: string,
): Promise<InvoiceView | null> {
  const order = await em.findOne(Order, { id: orderId, isInvoiceGenerated: true });
  return order && invoiceView(await invoiceSourceOf(em, context, order));
}

/** The credit note of a succeeded refund, or null when the refund has none. */
export async function loadCreditNote(
  em: EntityManager,
  context: InvoiceContext,
  refundId: string,
): Promise<InvoiceView | null> {
  const refund = await em.findOne(
    Refund,
    { id: refundId, creditNoteNumber: { $ne: null } },
    { populate: ['order'] },
  );
  if (!refund?.creditNoteNumber) return null;
  const source: CreditNoteSource = {
    ...(await invoiceSourceOf(em, context, refund.order)),
    refund: {
      creditNoteNumber: refund.creditNoteNumber,
      amount: refund.amount,
      taxAmount: refund.taxAmount,
      reason: refund.reason,
      settledAt: refund.modifiedAt ?? refund.createdAt,
    },
  };
  return creditNoteView(source);
}
