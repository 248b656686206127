import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { buy } from '../commerce/orders/testing.ts';
import { callV1 } from '../commerce/testing.ts';
import { eventually } from '../devstack/eventually.ts';
import { dashboardBrowserSuite, screenshotsDir, sellerPage } from './browser-testing.ts';

/**
 * The customer, order and refund pages in headless Chromium: a seller finds a paid order, its
 * customer and the license key it holds, and refunds the order. The order is bought through the
 * API (the hosted checkout has its own browser test); the dashboard's API is also the commerce
 * test API, and receives the Stripe simulator's webhooks.
 */
describe('dashboard: customers, orders and refunds (browser)', () => {
  const suite = dashboardBrowserSuite();

  it('finds an order and its customer, refuses a refund above what is left, refunds the rest', async () => {
    const { page, seller } = await sellerPage(suite.browser, suite.api.url, suite.api, {
      organizationName: 'Refund Works',
    });
    const ebook = await seller.polar.products.create({
      name: 'Ebook',
      prices: [{ amountType: 'fixed', priceAmount: 2000 }],
    });
    const licenseKey = await seller.polar.benefits.create({
      type: 'license_keys',
      description: 'Ebook license',
      properties: { prefix: 'BOOK' },
    });
    await seller.polar.products.updateBenefits({
      id: ebook.id,
      productBenefitsUpdate: { benefits: [licenseKey.id] },
    });
    const { order } = await buy(suite.api, seller, ebook.id);
    assert.ok(order);
    // The key is granted by the benefit grant workflow, after the order.
    await eventually(
      () => seller.polar.customers.getState({ id: order.customerId }),
      (state) => state.grantedBenefits.length === 1,
      { what: 'the license key granted' },
    );
    const [key] = (await seller.polar.licenseKeys.list({ benefitId: licenseKey.id })).result.items;
    assert.ok(key);

    // The orders list, then the customer from its row, then the order from the customer's page.
    await page.goto(`${suite.api.url}/`);
    await page.getByRole('link', { name: 'Orders', exact: true }).click();
    const row = page.getByRole('row').filter({ hasText: order.invoiceNumber });
    await row.getByText('$20.00').waitFor();
    await page.screenshot({ path: join(screenshotsDir, 'dashboard-orders.png'), fullPage: true });
    // The accounting export of every order, downloaded by the list's button.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    assert.equal(download.suggestedFilename(), 'orders.csv');
    assert.equal(
      await readFile(await download.path(), 'utf8'),
      'Invoice Number,Date,Customer Email,Billing Name,Country,Tax ID,Currency,Subtotal,Discount,' +
        'Net,Tax,Total,Refunded,Refunded Tax,Status,Tax Lines\r\n' +
        `${order.invoiceNumber},${order.createdAt.toISOString()},${order.customer.email},` +
        'Ada Buyer,FR,,usd,20.00,0.00,20.00,0.00,20.00,0.00,0.00,paid,\r\n',
    );
    await row.getByRole('link', { name: order.customer.email }).click();
    await page
      .getByRole('heading', { level: 1 })
      .getByText(order.customer.name ?? '')
      .waitFor();
    // The customer state: the license key benefit with its key, masked until shown.
    const benefits = page.getByRole('table', { name: 'Granted benefits' });
    const benefitRow = benefits.getByRole('row').filter({ hasText: 'Ebook license' });
    await benefitRow.getByText(key.displayKey).waitFor();
    await benefitRow.getByRole('button', { name: 'Show license key' }).click();
    await benefitRow.getByText(key.key).waitFor();
    await page.screenshot({ path: join(screenshotsDir, 'dashboard-customer.png'), fullPage: true });
    await page.getByRole('link', { name: order.invoiceNumber }).click();
    await page.getByRole('heading', { level: 1, name: `Order ${order.invoiceNumber}` }).waitFor();
    // The card that paid, as Stripe told it: brand and last 4 digits.
    await page
      .getByRole('region', { name: 'Details' })
      .getByText(/Visa\s*••••\s*ending\s*4242/)
      .waitFor();

    // The form offers the whole remainder; meanwhile the API refunds 15.00 of it.
    await page.getByRole('button', { name: 'Refund', exact: true }).click();
    const amount = page.getByRole('textbox', { name: /^Amount/ });
    assert.equal(await amount.inputValue(), '20.00');
    const first = await callV1(suite.api, seller.token, 'POST', '/v1/refunds/', {
      order_id: order.id,
      reason: 'duplicate',
      amount: 1500,
    });
    assert.equal(first.status, 200);

    // Refused by the API: the reason shows next to the amount, and every value is kept.
    await page
      .getByRole('combobox', { name: /^Reason/ })
      .selectOption({ label: 'Customer request' });
    await page.getByRole('textbox', { name: /^Comment/ }).fill('Asked by email');
    await page.getByRole('button', { name: 'Refund…' }).click();
    await page.getByRole('dialog', { name: 'Refund this order?' }).waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Refund' }).click();
    const amountError = page.locator('#field-amount-error');
    await amountError.waitFor();
    assert.equal(await amountError.textContent(), 'Only $5.00 is left to refund on this order.');
    assert.equal(await amount.getAttribute('aria-invalid'), 'true');
    assert.equal(await amount.inputValue(), '20.00');
    assert.equal(
      await page.getByRole('textbox', { name: /^Comment/ }).inputValue(),
      'Asked by email',
    );
    await page.screenshot({ path: join(screenshotsDir, 'dashboard-refund-refused.png') });

    await amount.fill('5');
    await page.getByRole('button', { name: 'Refund…' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Refund' }).click();
    // Both refunds settle in their workflows; the page follows until the order is refunded.
    await page.getByText('refunded', { exact: true }).first().waitFor({ timeout: 30_000 });
    const refunds = page.getByRole('table', { name: 'Refunds' });
    await refunds.getByRole('row').filter({ hasText: '$5.00' }).getByText('succeeded').waitFor();
    // A succeeded refund's credit note: its number links the HTML view, next to its PDF.
    const listed = await callV1(
      suite.api,
      seller.token,
      'GET',
      `/v1/refunds/?order_id=${order.id}`,
    );
    const refund = listed.body.items.find((item: { amount: number }) => item.amount === 500);
    assert.match(refund.credit_note_number, /.+/);
    const creditNote = refunds.getByRole('link', {
      name: refund.credit_note_number,
      exact: true,
    });
    const creditNoteUrl = (await creditNote.getAttribute('href')) ?? '';
    assert.match(
      creditNoteUrl,
      new RegExp(`/v1/refunds/${refund.id}/credit-note/document\\?token=`),
    );
    const creditNoteView = await page.request.get(creditNoteUrl);
    assert.equal(creditNoteView.status(), 200);
    assert.ok((await creditNoteView.text()).includes(refund.credit_note_number));
    const pdf = await page.request.get(
      (await refunds
        .getByRole('link', { name: `${refund.credit_note_number} as PDF` })
        .getAttribute('href')) ?? '',
    );
    assert.equal(pdf.headers()['content-type'], 'application/pdf');
    // The buyer gave a billing address: the invoice can be made out, and opens from its link.
    await page.getByRole('button', { name: 'Generate invoice' }).click();
    const invoice = page.getByRole('link', { name: 'Invoice', exact: true });
    assert.match((await invoice.getAttribute('href')) ?? '', /\/invoice\/document\?token=/);
    await page.screenshot({ path: join(screenshotsDir, 'dashboard-order.png'), fullPage: true });
    const settled = await eventually(
      () => seller.polar.orders.get({ id: order.id }),
      (current) => current.status === 'refunded',
      { what: 'order refunded' },
    );
    assert.equal(settled.refundedAmount, 2000);

    // The refunds list, filtered by outcome; the customers list, searched by email.
    await page.getByRole('link', { name: 'Refunds', exact: true }).click();
    await page.getByRole('combobox', { name: 'Outcome' }).selectOption({ label: 'Succeeded' });
    await page.getByText('Page 1 of 1 · 2 in all').waitFor();
    assert.match(page.url(), /succeeded=true/);
    await page.getByRole('link', { name: 'Customers', exact: true }).click();
    const search = page.getByRole('searchbox', { name: 'Search' });
    await search.fill('nobody by this name');
    await page.getByText('No customer matches this search.').waitFor();
    await search.fill(order.customer.email);
    await page.getByRole('link', { name: order.customer.email }).waitFor();
    await page.close();
  });
});
