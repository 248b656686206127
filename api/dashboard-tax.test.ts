import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { taxedOrder } from '../commerce/tax-report/testing.ts';
import { callV1 } from '../commerce/testing.ts';
import { eventually } from '../devstack/eventually.ts';
import { dashboardBrowserSuite, screenshotsDir, sellerPage } from './browser-testing.ts';

/**
 * The Tax page in headless Chromium: a seller turns on its own rates, adds the German rate (a
 * rate that is no percentage refused in words first), sees it listed, and once a German buyer
 * paid, reads the month's tax in the report and downloads it as CSV.
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
});
