import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OrderItem, Order as OrderRow } from '../../db/entities/index.ts';
import { eventually } from '../../devstack/eventually.ts';
import { advanceTestClock, subscribeOnTestClock } from '../subscriptions/testing.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';
import { pdfImages, pdfText, uploadedLogoUrl } from './invoice-testing.ts';
import { buy } from './testing.ts';

/** A tax line of 20 % French VAT, its amounts left to each order. */
const frenchVat = {
  jurisdiction: 'FR',
  displayName: 'VAT FR',
  rateBps: 2000,
  inclusive: false,
  reverseCharge: false,
};

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

  it('prints the seats each order billed and the period it pays for, by the test clock, at checkout and on renewal', async () => {
    await seller.polar.organizations.update({
      id: seller.organizationId,
      organizationUpdate: { featureSettings: { seatBasedPricingEnabled: true } },
    });
    const team = await seller.polar.products.create({
      name: 'Team plan',
      recurringInterval: 'month',
      prices: [{ amountType: 'seat_based', pricePerSeat: 900 }],
    });
    const { subscriptionId, clockId } = await subscribeOnTestClock(
      api,
      seller,
      team.id,
      '2027-01-01T00:00:00Z',
      5,
    );
    await advanceTestClock(api, seller, clockId, '2027-02-01T00:00:00Z');
    const { customerId } = await seller.polar.subscriptions.get({ id: subscriptionId });
    const orders = await eventually(
      () => seller.polar.orders.list({ customerId, sorting: ['created_at'] }),
      (page) => page.result.items.some((order) => order.billingReason === 'subscription_cycle'),
      { what: 'the renewal order of the team plan' },
    );
    const textOf = async (id: string) => {
      // The clock's buyer gave no billing address: the seller fills it in, as invoices need.
      await seller.polar.orders.update({
        id,
        orderUpdate: {
          billingName: 'Ada Buyer',
          billingAddress: {
            country: 'FR',
            line1: '1 rue de la Paix',
            postalCode: '75002',
            city: 'Paris',
          },
        },
      });
      await seller.polar.orders.generateInvoice({ id });
      const { url } = await seller.polar.orders.invoice({ id });
      return pdfText(await (await fetch(`${onTestApi(url)}&format=pdf`)).arrayBuffer());
    };
    const [first, renewal] = orders.result.items;
    assert.ok(first && renewal);
    // Seats added after the renewal (billed by an order of their own) leave its invoice at the
    // five seats it billed. The SDK (0.35.x) knows no seats update: a raw call.
    const added = await callV1(api, seller.token, 'PATCH', `/v1/subscriptions/${subscriptionId}`, {
      seats: 7,
      proration_behavior: 'prorate',
    });
    assert.equal(added.status, 200, JSON.stringify(added.body));
    // The line, one cell a run: what was bought (named alike), how many seats, its tax, its amount;
    // the period is the clock's, though both orders were written today.
    for (const [order, period] of [
      [first, '2027-01-01 – 2027-02-01'],
      [renewal, '2027-02-01 – 2027-03-01'],
    ] as const) {
      const text = await textOf(order.id);
      assert.ok(text.includes('Team plan (5 seats)\n5 seats\n$0.00\n$45.00'), text);
      assert.ok(text.includes(`Billing period: ${period}`), text);
    }
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
    assert.equal((await setLogo(await uploadedLogoUrl(api, seller.organizationId))).status, 200);
    assert.equal(await pdfImages(await invoicePdf()), 1);
  });

  it('answers the PDF to Accept: application/pdf, and HTML by default', async () => {
    const { url } = await seller.polar.orders.invoice({ id: orderId });
    const pdf = await fetch(onTestApi(url), { headers: { accept: 'application/pdf' } });
    assert.equal(pdf.headers.get('content-type'), 'application/pdf');
    const html = await fetch(onTestApi(url));
    assert.match(html.headers.get('content-type') ?? '', /^text\/html/);
    // Its inline styles and inlined logo are all the page may use; nothing in it runs.
    assert.equal(
      html.headers.get('content-security-policy'),
      "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox",
    );
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
