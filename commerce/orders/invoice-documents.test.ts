import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { getDocument, OPS } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { OrderItem, Order as OrderRow, StoredFile } from '../../db/entities/index.ts';
import { eventually } from '../../devstack/eventually.ts';
import { filePublicUrl } from '../files/schemas.ts';
import { fileStorage } from '../files/service.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';
import { buy } from './testing.ts';

/** pdfjs reads the standard fonts' metrics from its own folder (silences its warning). */
const standardFontDataUrl = `${join(
  dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json')),
  'standard_fonts',
)}/`;

/** The text of every page of a PDF, each text run on its own line (blank runs left out). */
async function pdfText(bytes: ArrayBuffer): Promise<string> {
  const pdf = await getDocument({ data: new Uint8Array(bytes), standardFontDataUrl }).promise;
  const pages: string[] = [];
  for (let number = 1; number <= pdf.numPages; number += 1) {
    const content = await (await pdf.getPage(number)).getTextContent();
    const runs = content.items.map((item) => ('str' in item ? item.str : ''));
    pages.push(runs.filter((run) => run.trim()).join('\n'));
  }
  return pages.join('\n');
}

/** A tax line of 20 % French VAT, its amounts left to each order. */
const frenchVat = {
  jurisdiction: 'FR',
  displayName: 'VAT FR',
  rateBps: 2000,
  inclusive: false,
  reverseCharge: false,
};

/** How many images the PDF's first page paints. */
async function pdfImages(bytes: ArrayBuffer): Promise<number> {
  const pdf = await getDocument({ data: new Uint8Array(bytes), standardFontDataUrl }).promise;
  const operators = await (await pdf.getPage(1)).getOperatorList();
  return operators.fnArray.filter((op) => op === OPS.paintImageXObject).length;
}

/** A 1×1 PNG (a red dot). */
const dotPng = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
  'base64',
);

describe('invoice and credit note documents', () => {
  let api: TestApi;
  let seller: Seller;
  let other: Seller;
  let slug: string;
  let orderId: string;
  let invoiceNumber: string;
  /** A link's path and query on the test API (links name the configured public URL). */
  const onTestApi = (url: string) => {
    const { pathname, search } = new URL(url);
    return `${api.url}${pathname}${search}`;
  };

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
    other = await createSeller(api);
    const settings = await callV1(
      api,
      seller.token,
      'PATCH',
      `/v1/organizations/${seller.organizationId}`,
      {
        invoice_settings: {
          legal_name: 'Tollgate Test Works SAS',
          address: {
            line1: '5 avenue Anatole France',
            postal_code: '75007',
            city: 'Paris',
            country: 'fr',
          },
          tax_id: 'FR40303265045',
          brand_color: '#0a7cff',
          footer: 'Registered in Paris, RCS 303 265 045.',
        },
      },
    );
    assert.equal(settings.status, 200);
    slug = settings.body.slug;
    const product = await seller.polar.products.create({
      name: 'Annual report',
      prices: [{ amountType: 'fixed', priceAmount: 1200 }],
    });
    const { order } = await buy(api, seller, product.id);
    assert.ok(order);
    orderId = order.id;
    invoiceNumber = order.invoiceNumber;
    // Checkouts here charge no tax: 240 of tax is put on the line and the order by hand.
    const em = api.orm.em.fork();
    await em.nativeUpdate(OrderItem, { order: orderId }, { taxAmount: 240 });
    await em.nativeUpdate(OrderRow, orderId, {
      taxAmount: 240,
      totalAmount: 1440,
      taxLines: [{ ...frenchVat, taxableAmount: 1200, taxAmount: 240 }],
    });
    const taxId = await callV1(api, seller.token, 'PATCH', `/v1/customers/${order.customerId}`, {
      tax_id: ['FR61954506077', 'eu_vat'],
    });
    assert.equal(taxId.status, 200);
    await seller.polar.orders.generateInvoice({ id: orderId });
  });
  after(() => api.close());

  it('keeps the legal details and branding in the organization settings', async () => {
    const organization = await callV1(
      api,
      seller.token,
      'GET',
      `/v1/organizations/${seller.organizationId}`,
    );
    assert.deepEqual(organization.body.invoice_settings, {
      legal_name: 'Tollgate Test Works SAS',
      address: {
        line1: '5 avenue Anatole France',
        line2: null,
        postal_code: '75007',
        city: 'Paris',
        state: null,
        country: 'FR',
      },
      tax_id: 'FR40303265045',
      logo_url: null,
      brand_color: '#0a7cff',
      footer: 'Registered in Paris, RCS 303 265 045.',
    });
  });

  it('refuses a brand colour that is not #rrggbb with 422', async () => {
    const path = `/v1/organizations/${seller.organizationId}`;
    for (const brand_color of ['blue', '#0a7cf', '#0a7cffz']) {
      const answer = await callV1(api, seller.token, 'PATCH', path, {
        invoice_settings: { brand_color },
      });
      assert.equal(answer.status, 422, brand_color);
    }
  });

  it('renders the invoice as a PDF a finance team can file', async () => {
    const { url } = await seller.polar.orders.invoice({ id: orderId });
    const response = await fetch(`${onTestApi(url)}&format=pdf`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/pdf');
    assert.equal(
      response.headers.get('content-disposition'),
      `attachment; filename="${invoiceNumber}.pdf"`,
    );
    const text = await pdfText(await response.arrayBuffer());
    for (const expected of [
      `Invoice ${invoiceNumber}`,
      'Tollgate Test Works SAS',
      'Tax ID: FR40303265045',
      'Ada Buyer',
      'Tax ID: FR61954506077',
      'Annual report',
      '$2.40',
      '$12.00',
      '$14.40',
    ]) {
      assert.ok(text.includes(expected), `the PDF shows ${expected}:\n${text}`);
    }
    assert.match(text, /Paid by Visa •••• 4242 on \d{4}-\d{2}-\d{2}/);
    // The tax line: its name and jurisdiction, rate, taxable amount and tax, one cell a run.
    assert.ok(
      text.includes('Tax amount\nVAT FR (FR)\n20%\n$12.00\n$2.40'),
      `the PDF shows the tax line:\n${text}`,
    );
    assert.ok(!text.includes('Reverse charge'), 'no reverse charge on a taxed sale');
  });

  it('prints a reverse-charged tax line and says the buyer accounts for the VAT', async () => {
    const product = await seller.polar.products.create({
      name: 'Consulting day',
      prices: [{ amountType: 'fixed', priceAmount: 4900 }],
    });
    const { order } = await buy(api, seller, product.id);
    assert.ok(order);
    const reverseCharge = {
      ...frenchVat,
      jurisdiction: 'DE',
      displayName: 'Reverse charge',
      rateBps: 0,
      reverseCharge: true,
    };
    await api.orm.em.fork().nativeUpdate(OrderRow, order.id, {
      taxLines: [{ ...reverseCharge, taxableAmount: 4900, taxAmount: 0 }],
    });
    await seller.polar.orders.generateInvoice({ id: order.id });
    const { url } = await seller.polar.orders.invoice({ id: order.id });
    const text = await pdfText(await (await fetch(`${onTestApi(url)}&format=pdf`)).arrayBuffer());
    assert.ok(
      text.includes('Reverse charge (DE)\n0%\n$49.00\n$0.00'),
      `the PDF shows the reverse-charged line:\n${text}`,
    );
    assert.ok(text.includes('Reverse charge — VAT to be accounted for by the recipient'), text);
    assert.ok(text.includes('Tax ID: FR40303265045'), "the seller's tax id");
    const page = await (await fetch(onTestApi(url))).text();
    assert.match(page, /Reverse charge — VAT to be accounted for by the recipient/);
  });

  it('prints a logo the organization uploaded, and never fetches one from elsewhere', async () => {
    const invoicePdf = async () => {
      const { url } = await seller.polar.orders.invoice({ id: orderId });
      return (await fetch(`${onTestApi(url)}&format=pdf`)).arrayBuffer();
    };
    const setLogo = (logo_url: string) =>
      callV1(api, seller.token, 'PATCH', `/v1/organizations/${seller.organizationId}`, {
        invoice_settings: { logo_url },
      });
    // A URL elsewhere is left off (this host does not exist: a fetch would fail the render).
    assert.equal((await setLogo('https://logo.invalid/logo.png')).status, 200);
    assert.equal(await pdfImages(await invoicePdf()), 0);

    // The organization's own avatar file, stored as an upload leaves it.
    const path = `${seller.organizationId}/${randomUUID()}/logo.png`;
    const storage = fileStorage(api.config.files);
    const part = { number: 1, chunkStart: 0, chunkEnd: dotPng.length, sha256Base64: null };
    await storage.startUpload(path, [part]);
    const { etag } = await storage.writePart(path, part, Readable.from([dotPng]));
    await storage.completeUpload(path, [{ number: 1, etag, sha256Base64: null }], {
      size: dotPng.length,
      sha256Base64: null,
    });
    const em = api.orm.em.fork();
    const file = em.create(StoredFile, {
      organization: seller.organizationId,
      name: 'logo.png',
      path,
      mimeType: 'image/png',
      size: dotPng.length,
      service: 'organization_avatar',
      isUploaded: true,
    });
    await em.flush();
    assert.equal((await setLogo(filePublicUrl(file, api.config.api.publicUrl))).status, 200);
    assert.equal(await pdfImages(await invoicePdf()), 1);
  });

  it('answers the PDF to Accept: application/pdf, and HTML by default', async () => {
    const { url } = await seller.polar.orders.invoice({ id: orderId });
    const pdf = await fetch(onTestApi(url), { headers: { accept: 'application/pdf' } });
    assert.equal(pdf.headers.get('content-type'), 'application/pdf');
    const html = await fetch(onTestApi(url));
    assert.match(html.headers.get('content-type') ?? '', /^text\/html/);
    const page = await html.text();
    assert.match(page, /Tollgate Test Works SAS/);
    assert.match(page, /Tax ID: FR61954506077/);
  });

  it('gives a succeeded refund its own credit note number and document', async () => {
    const refund = await seller.polar.refunds.create({
      orderId,
      amount: 500,
      reason: 'customer_request',
    });
    assert.ok(refund);
    const link = await eventually(
      () => callV1(api, seller.token, 'GET', `/v1/refunds/${refund.id}/credit-note`),
      (answer) => answer.status === 200,
      { what: 'the credit note of the settled refund' },
    );
    const response = await fetch(`${onTestApi(link.body.url)}&format=pdf`);
    assert.equal(response.status, 200);
    // The organization's first credit note, numbered apart from its invoices.
    const number = `${slug.toUpperCase()}-CN-0001`;
    assert.equal(
      response.headers.get('content-disposition'),
      `attachment; filename="${number}.pdf"`,
    );
    const text = await pdfText(await response.arrayBuffer());
    for (const expected of [
      `Credit note ${number}`,
      `Corrects invoice: ${invoiceNumber}`,
      'Tollgate Test Works SAS',
      'Tax ID: FR61954506077',
      '$5.00',
      'Refunded by Visa •••• 4242',
    ]) {
      assert.ok(text.includes(expected), `the credit note shows ${expected}:\n${text}`);
    }
  });

  it('keeps another organization away from the documents, and refuses a bad token', async () => {
    const invoiceLink = await callV1(api, other.token, 'GET', `/v1/orders/${orderId}/invoice`);
    assert.equal(invoiceLink.status, 404);
    const [refund] = (await seller.polar.refunds.list({ orderId })).result.items;
    assert.ok(refund);
    const creditNoteLink = await callV1(
      api,
      other.token,
      'GET',
      `/v1/refunds/${refund.id}/credit-note`,
    );
    assert.equal(creditNoteLink.status, 404);
    // The invoice's token does not open the credit note, nor a forged one either document.
    const { url } = await seller.polar.orders.invoice({ id: orderId });
    const token = new URL(url).searchParams.get('token');
    const creditNote = `${api.url}/v1/refunds/${refund.id}/credit-note/document`;
    assert.equal((await fetch(`${creditNote}?token=${token}&format=pdf`)).status, 404);
    assert.equal((await fetch(`${creditNote}?token=forged.token&format=pdf`)).status, 404);
    const invoice = `${api.url}/v1/orders/${orderId}/invoice/document`;
    assert.equal((await fetch(`${invoice}?token=forged.token&format=pdf`)).status, 404);
  });
});
