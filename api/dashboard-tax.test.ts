import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { buyerClient } from '../commerce/orders/testing.ts';
import { taxedOrder } from '../commerce/tax-report/testing.ts';
import { callV1 } from '../commerce/testing.ts';
import { Checkout } from '../db/entities/index.ts';
import { eventually } from '../devstack/eventually.ts';
import { dashboardBrowserSuite, screenshotsDir, sellerPage } from './browser-testing.ts';

/**
 * The Tax page in headless Chromium: a seller turns on its own rates, adds the German rate (a
 * rate that is no percentage refused in words first), sees it listed, and once a German buyer
 * paid, reads the month's tax in the report and downloads it as CSV. Another chooses Stripe Tax;
 * a product is made tax exempt, then taxable again, in the product form.
 */
describe('dashboard: tax settings, rates and report (browser)', () => {
  const suite = dashboardBrowserSuite();

  it('adds a rate, lists it, and downloads the tax report', async () => {
    const { page, seller } = await sellerPage(suite.browser, suite.api.url, suite.api, {
      organizationName: 'Tax Works',
    });
    await page.goto(`${suite.api.url}/`);
    await page.getByRole('link', { name: 'Tax', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Tax' }).waitFor();

    await page.getByLabel('Tax mode').selectOption('seller_rates');
    await page.getByLabel('Home country').fill('DE');
    await page.getByRole('button', { name: 'Save tax settings' }).click();
    await eventually(
      () => callV1(suite.api, seller.token, 'GET', `/v1/organizations/${seller.organizationId}`),
      (answer) => answer.body.tax_settings.mode === 'seller_rates',
      { what: 'the tax settings saved' },
    );

    await page.getByRole('textbox', { name: 'Country', exact: true }).fill('DE');
    await page.getByLabel('Rate (%)').fill('nineteen');
    await page.getByLabel('Name on invoices').fill('VAT DE');
    await page.getByRole('button', { name: 'Add rate' }).click();
    await page
      .getByText('Rate must be a percentage from 0 to 100, with up to two decimals')
      .waitFor();
    await page.getByLabel('Rate (%)').fill('19');
    await page.getByRole('button', { name: 'Add rate' }).click();
    const rates = page.getByRole('table', { name: 'Tax rates' });
    const rateRow = rates.getByRole('row').filter({ hasText: 'VAT DE' });
    await rateRow.getByText('19%').waitFor();
    // Edited: the name changes, the place stays.
    await rateRow.getByRole('button', { name: 'Edit VAT DE' }).click();
    await page.getByLabel('Name on invoices').fill('Umsatzsteuer');
    await page.getByRole('button', { name: 'Save rate' }).click();
    await rates.getByRole('row').filter({ hasText: 'Umsatzsteuer' }).getByText('19%').waitFor();

    const product = await seller.polar.products.create({
      name: 'Handbook',
      prices: [{ amountType: 'fixed', priceAmount: 4900, priceCurrency: 'usd' }],
    });
    const order = await taxedOrder(suite.api, seller, product.id, {
      country: 'DE',
      city: 'Berlin',
      line1: 'Unter den Linden 1',
    });
    assert.equal(order.taxAmount, 931);
    await page.reload();
    const report = page.getByRole('table', { name: 'Tax collected' });
    await report.getByRole('row').filter({ hasText: '$9.31' }).getByText('DE').waitFor();
    await page.screenshot({ path: join(screenshotsDir, 'dashboard-tax.png'), fullPage: true });

    const day = new Date().toISOString().slice(0, 10);
    const from = `${day.slice(0, 8)}01`;
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    assert.equal(download.suggestedFilename(), `tax-report-${from}-${day}.csv`);
    assert.equal(
      await readFile(await download.path(), 'utf8'),
      'Period,Country,Subdivision,Currency,Reverse Charge,Taxable Amount,Tax Amount,Orders\r\n' +
        `${day.slice(0, 7)},DE,,usd,no,49.00,9.31,1\r\n`,
    );
  });

  it('chooses Stripe Tax, keeps it after a reload, and a checkout is then priced by Stripe', async () => {
    const { page, seller } = await sellerPage(suite.browser, suite.api.url, suite.api, {
      organizationName: 'Stripe Tax Works',
    });
    await page.goto(`${suite.api.url}/`);
    await page.getByRole('link', { name: 'Tax', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Tax' }).waitFor();
    await page.getByLabel('Tax mode').selectOption({ label: 'Stripe Tax' });
    await page.getByLabel('Home country').fill('DE');
    await page.getByRole('button', { name: 'Save tax settings' }).click();
    await eventually(
      () => callV1(suite.api, seller.token, 'GET', `/v1/organizations/${seller.organizationId}`),
      (answer) => answer.body.tax_settings.mode === 'stripe_tax',
      { what: 'the tax settings saved' },
    );
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Tax' }).waitFor();
    assert.equal(await page.getByLabel('Tax mode').inputValue(), 'stripe_tax');
    assert.equal(await page.getByLabel('Home country').inputValue(), 'DE');

    // No rate of the seller's own: the German 19 % is Stripe's calculation (the simulator's table).
    const product = await seller.polar.products.create({
      name: 'Handbook',
      prices: [{ amountType: 'fixed', priceAmount: 4900, priceCurrency: 'usd' }],
    });
    const created = await seller.polar.checkouts.create({ products: [product.id] });
    const priced = await buyerClient(suite.api).checkouts.clientUpdate({
      clientSecret: created.clientSecret,
      checkoutUpdatePublic: {
        customerBillingAddress: { country: 'DE', city: 'Berlin', line1: 'Unter den Linden 1' },
      },
    });
    assert.deepEqual([priced.netAmount, priced.taxAmount, priced.totalAmount], [4900, 931, 5831]);
    const checkout = await suite.api.orm.em.fork().findOneOrFail(Checkout, created.id);
    assert.match(checkout.stripeTaxCalculationId ?? '', /^taxcalc_/);
    await page.close();
  });

  it('makes a product tax exempt in the product form, then taxable again', async () => {
    const { page, seller } = await sellerPage(suite.browser, suite.api.url, suite.api, {
      organizationName: 'Exempt Works',
    });
    const taxBehavior = async (productId: string) =>
      (await callV1(suite.api, seller.token, 'GET', `/v1/products/${productId}`)).body.tax_behavior;
    await page.goto(`${suite.api.url}/products/new`);
    await page.getByRole('heading', { level: 1, name: 'New product' }).waitFor();
    await page.getByLabel('Name').fill('Children’s book');
    await page.getByLabel('Billing').selectOption({ label: 'One-time purchase' });
    await page.getByLabel('Amount (USD)').fill('15');
    assert.equal(await page.getByLabel('Tax behaviour').inputValue(), 'taxable');
    await page.getByLabel('Tax behaviour').selectOption({ label: 'Tax exempt' });
    await page.getByRole('button', { name: 'Create product' }).click();
    await page.getByRole('heading', { level: 1, name: 'Children’s book', exact: true }).waitFor();
    await page.getByText('Tax exempt', { exact: true }).waitFor();
    const productId = page.url().split('/').at(-1) ?? '';
    assert.equal(await taxBehavior(productId), 'exempt');

    await page.getByRole('link', { name: 'Edit', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Edit Children’s book' }).waitFor();
    assert.equal(await page.getByLabel('Tax behaviour').inputValue(), 'exempt');
    await page.getByLabel('Tax behaviour').selectOption({ label: 'Taxable' });
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { level: 1, name: 'Children’s book', exact: true }).waitFor();
    await page.getByText('Taxable', { exact: true }).waitFor();
    assert.equal(await taxBehavior(productId), 'taxable');
    await page.close();
  });
});
