import { createHash, randomBytes } from 'node:crypto';
import { Order, OrderItem } from '../../db/entities/index.ts';
import type { Seller, TestApi } from '../testing.ts';

const tag = () => randomBytes(5).toString('hex');

/** A product of the seller carrying `benefitIds`, with one fixed price. */
export async function productWithBenefits(seller: Seller, benefitIds: string[]) {
  const product = await seller.polar.products.create({
    name: `Bundle ${tag()}`,
    prices: [{ amountType: 'fixed', priceAmount: 1000 }],
  });
  await seller.polar.products.updateBenefits({
    id: product.id,
    productBenefitsUpdate: { benefits: benefitIds },
  });
  return product;
}

/** A paid one-time order of the product, written as the checkout workflow writes one. */
export async function paidOrder(
  api: TestApi,
  seller: Seller,
  customerId: string,
  productId: string,
  metadata: Record<string, string | number | boolean> = {},
) {
  const em = api.orm.em.fork();
  const order = em.create(Order, {
    organization: seller.organizationId,
    customer: customerId,
    product: productId,
    status: 'paid',
    billingReason: 'purchase',
    subtotalAmount: 1000,
    discountAmount: 0,
    netAmount: 1000,
    taxAmount: 0,
    totalAmount: 1000,
    currency: 'usd',
    invoiceNumber: `T-${tag()}`,
    metadata,
  });
  em.create(OrderItem, { order, label: 'Bundle', amount: 1000 });
  await em.flush();
  return order;
}

/** `url` (under the API's configured public URL) at the test API's own address. */
export const atTestApi = (api: TestApi, url: string) =>
  url.replace(api.config.api.publicUrl.replace(/\/$/, ''), api.url);

/** Uploads `bytes` as a downloadable file of the seller, in one part, through the SDK. */
export async function uploadDownloadable(
  api: TestApi,
  seller: Seller,
  name: string,
  bytes: Buffer,
) {
  const checksum = createHash('sha256').update(bytes).digest('base64');
  const upload = await seller.polar.files.create({
    service: 'downloadable',
    name,
    mimeType: 'text/plain',
    size: bytes.length,
    checksumSha256Base64: checksum,
    upload: {
      parts: [{ number: 1, chunkStart: 0, chunkEnd: bytes.length, checksumSha256Base64: checksum }],
    },
  });
  const [part] = upload.upload.parts;
  if (!part) throw new Error('the upload planned no part');
  const response = await fetch(atTestApi(api, part.url), {
    method: 'PUT',
    headers: part.headers,
    body: bytes,
  });
  const etag = response.headers.get('etag');
  if (!response.ok || !etag) throw new Error(`part upload failed: ${response.status}`);
  return seller.polar.files.uploaded({
    id: upload.id,
    fileUploadCompleted: {
      id: upload.upload.id,
      path: upload.upload.path,
      parts: [{ number: 1, checksumEtag: etag, checksumSha256Base64: checksum }],
    },
  });
}
