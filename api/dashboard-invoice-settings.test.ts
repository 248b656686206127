import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { pdfImages, pdfText, uploadedLogoUrl } from '../commerce/orders/invoice-testing.ts';
import { buy } from '../commerce/orders/testing.ts';
import { dashboardBrowserSuite, screenshotsDir, sellerPage } from './browser-testing.ts';

/**
 * The invoice settings in headless Chromium: the seller types its legal details, logo and brand
 * colour under Settings (a colour that is no #rrggbb refused next to the field), and the next
 * invoice prints them, as HTML in the browser and as PDF.
 */
describe('dashboard: invoice settings (browser)', () => {
  const suite = dashboardBrowserSuite();

  it('saves legal details, logo and brand colour, and the invoice prints them', async () => {
    const { page, seller } = await sellerPage(suite.browser, suite.api.url, suite.api, {
      organizationName: 'Invoice Works',
    });
    const logoUrl = await uploadedLogoUrl(suite.api, seller.organizationId);

    await page.goto(`${suite.api.url}/organization/settings`);
    const invoices = page.getByRole('region', { name: 'Invoices' });
    const field = (label: string) => invoices.getByLabel(`${label} (optional)`, { exact: true });
    await field('Legal name').fill('Invoice Works SAS');
    await field('Address').fill('5 avenue Anatole France');
    await field('Postal code').fill('75007');
    await field('City').fill('Paris');
    await field('Country').fill('FR');
    await field('Tax ID').fill('FR40303265045');
    await field('Logo URL').fill(logoUrl);
    await field('Brand colour').fill('blue');
    await field('Invoice footer').fill('Registered in Paris, RCS 303 265 045.');
    const save = invoices.getByRole('button', { name: 'Save invoice settings' });
    await save.click();
    await invoices.getByText('Brand colour must be #rrggbb.').waitFor();
    assert.equal(await field('Brand colour').getAttribute('aria-invalid'), 'true');

    await field('Brand colour').fill('#0a7cff');
    await Promise.all([
      page.waitForResponse((response) => response.request().method() === 'PATCH' && response.ok()),
      save.click(),
    ]);
    const organization = await seller.polar.organizations.get({ id: seller.organizationId });
    assert.equal(organization.id, seller.organizationId);
    await page.screenshot({
      path: join(screenshotsDir, 'dashboard-invoice-settings.png'),
      fullPage: true,
    });

    const product = await seller.polar.products.create({
      name: 'Annual report',
      prices: [{ amountType: 'fixed', priceAmount: 1200 }],
    });
    const { order } = await buy(suite.api, seller, product.id);
    assert.ok(order);
    await seller.polar.orders.generateInvoice({ id: order.id });
    const { url } = await seller.polar.orders.invoice({ id: order.id });

    // The HTML invoice: the logo, the title in the brand colour, the seller's legal details.
    await page.goto(url);
    const title = page.getByRole('heading', { level: 1, name: `Invoice ${order.invoiceNumber}` });
    assert.equal(
      await title.evaluate(
        (element) => element.ownerDocument.defaultView?.getComputedStyle(element).color,
      ),
      'rgb(10, 124, 255)',
    );
    assert.equal(await page.locator('img').count(), 1, 'the logo is printed');
    for (const expected of [
      'Invoice Works SAS',
      '5 avenue Anatole France',
      'Tax ID: FR40303265045',
    ]) {
      await page.getByText(expected).first().waitFor();
    }
    await page.getByText('Registered in Paris, RCS 303 265 045.').waitFor();
    await page.screenshot({ path: join(screenshotsDir, 'invoice-branded.png'), fullPage: true });

    const pdf = await (await page.request.get(`${url}&format=pdf`)).body();
    // A copy for each read: pdfjs takes over the bytes it is given.
    const bytes = () => Uint8Array.from(pdf).buffer;
    const text = await pdfText(bytes());
    for (const expected of [
      'Invoice Works SAS',
      '75007 Paris',
      'Tax ID: FR40303265045',
      'Registered in Paris, RCS 303 265 045.',
    ]) {
      assert.ok(text.includes(expected), `the PDF shows ${expected}:\n${text}`);
    }
    assert.equal(await pdfImages(bytes()), 1, 'the PDF prints the logo');
    await page.close();
  });
});
