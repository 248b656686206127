import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { callV1, createSeller, type Seller } from '../commerce/testing.ts';
import { Order } from '../db/entities/index.ts';
import { dashboardBrowserSuite, screenshotsDir } from './browser-testing.ts';

/**
 * The hosted checkout taxed by the seller's own rates, in headless Chromium, with docs/tax.md's
 * numbers: the page prices the checkout as the buyer gives their place, before they pay. A
 * German consumer sees 19 % VAT on top of 49.00 and the pay button's total; a French business
 * with a VAT id sees an invalid id refused next to its field, then the reverse charge.
 */
describe('hosted checkout page: tax (browser)', () => {
  const suite = dashboardBrowserSuite();
  let seller: Seller;
  let productId: string;

  before(async () => {
    seller = await createSeller(suite.api);
    const v1 = (method: string, path: string, body: unknown) =>
      callV1(suite.api, seller.token, method, path, body);
    const settings = await v1('PATCH', `/v1/organizations/${seller.organizationId}`, {
      tax_settings: { mode: 'seller_rates', home_country: 'DE' },
    });
    assert.equal(settings.status, 200, JSON.stringify(settings.body));
    for (const rate of [
      { country: 'DE', rate_bps: 1900, display_name: 'VAT DE' },
      { country: 'FR', rate_bps: 2000, display_name: 'VAT FR' },
    ]) {
      const created = await v1('POST', '/v1/tax-rates', rate);
      assert.equal(created.status, 201, JSON.stringify(created.body));
    }
    const product = await seller.polar.products.create({
      name: 'Handbook',
      prices: [{ amountType: 'fixed', priceAmount: 4900, priceCurrency: 'usd' }],
    });
    productId = product.id;
  });

  async function openCheckout() {
    const checkout = await seller.polar.checkouts.create({ products: [productId] });
    const page = await suite.browser.newPage();
    await page.goto(`${suite.api.url}/checkout/${checkout.clientSecret}`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    return Object.assign(page, { checkout });
  }

  /** The checkout's order, and its tax lines as stored (the order's wire has none yet). */
  async function taxLinesOf(checkoutId: string) {
    const orders = await seller.polar.orders.list({ productId });
    const order = orders.result.items.find((each) => each.checkoutId === checkoutId);
    assert.ok(order, 'the checkout made an order');
    const stored = await suite.api.orm.em.fork().findOneOrFail(Order, order.id);
    return { order, taxLines: stored.taxLines };
  }

  it('adds German VAT for a German consumer once the country is known', async () => {
    const page = await openCheckout();
    await page.getByLabel('Email').fill('erika@example.com');
    await page.getByLabel('Name').fill('Erika Mustermann');
    // No country yet: no tax is known, the button says the price.
    assert.equal(await page.getByTestId('total-amount').textContent(), '$49.00');
    await page.getByRole('button', { name: 'Pay $49.00' }).waitFor();
    await page.getByLabel('Country').selectOption('DE');
    const amounts = page.locator('dl.amounts');
    await amounts.getByText('VAT DE (DE), 19%').waitFor();
    assert.equal(await page.getByTestId('tax-line').textContent(), '$9.31');
    assert.equal(await page.getByTestId('amount').textContent(), '$49.00');
    assert.equal(await page.getByTestId('total-amount').textContent(), '$58.31');
    await page.getByRole('button', { name: 'Pay $58.31' }).waitFor();

    // A reload keeps the country typed, and the tax priced for it.
    await page.reload();
    await page.getByRole('heading', { level: 1 }).waitFor();
    assert.equal(await page.getByLabel('Country').inputValue(), 'DE');
    assert.equal(await page.getByTestId('tax-line').textContent(), '$9.31');
    await page.getByRole('radio', { name: /4242/ }).check();
    await page.screenshot({ path: join(screenshotsDir, 'checkout-tax.png'), fullPage: true });
    await page.getByRole('button', { name: 'Pay $58.31' }).click();
    await page.waitForURL(/\/confirmation$/, { timeout: 30_000 });
    await page.getByText('You paid $58.31 for Handbook.').waitFor({ timeout: 30_000 });

    const { order, taxLines } = await taxLinesOf(page.checkout.id);
    assert.deepEqual([order.netAmount, order.taxAmount, order.totalAmount], [4900, 931, 5831]);
    assert.equal(taxLines.length, 1, JSON.stringify(taxLines));
    assert.equal(taxLines[0]?.displayName, 'VAT DE');
    assert.equal(taxLines[0]?.taxAmount, 931);
    await page.close();
  });

  it('charges no tax to a French business with a VAT id: the reverse charge', async () => {
    const page = await openCheckout();
    await page.getByLabel('Email').fill('compta@example.fr');
    await page.getByLabel('Name').fill('Claude Martin');
    await page.getByLabel('I’m purchasing as a business').check();
    await page.getByLabel('Business name').fill('Martin SARL');
    await page.getByLabel('Country').selectOption('FR');
    // French VAT at first: no tax id yet.
    const amounts = page.locator('dl.amounts');
    await amounts.getByText('VAT FR (FR), 20%').waitFor();
    await page.getByRole('button', { name: 'Pay $58.80' }).waitFor();

    // A VAT id too short to be French: the server's refusal next to the field.
    await page.getByLabel('Tax ID').fill('FR4030326');
    await page.locator('#field-customer_tax_id-error').getByText('Invalid tax ID.').waitFor();
    assert.equal(await page.getByTestId('tax-line').textContent(), '$9.80');

    await page.getByLabel('Tax ID').fill('FR40303265045');
    await amounts.getByText('Reverse charge (FR), 0%').waitFor();
    assert.equal(await page.locator('#field-customer_tax_id-error').count(), 0);
    assert.match(
      (await page.getByTestId('reverse-charge').textContent()) ?? '',
      /VAT to be accounted for by the recipient/,
    );
    await page.getByRole('textbox', { name: 'Address', exact: true }).fill('1 rue de la Paix');
    await page.getByLabel('Postal code').fill('75002');
    await page.getByLabel('City').fill('Paris');
    // A business's address is asked in full, its region too (billingAddressFields).
    await page.getByLabel('State / province').fill('Île-de-France');
    await page.getByLabel('State / province').press('Tab');
    assert.equal(await page.getByTestId('tax-line').textContent(), '$0.00');
    assert.equal(await page.getByTestId('total-amount').textContent(), '$49.00');
    await page.getByRole('radio', { name: /4242/ }).check();
    await page.getByRole('button', { name: 'Pay $49.00' }).click();
    await page.waitForURL(/\/confirmation$/, { timeout: 30_000 });
    await page.getByText('You paid $49.00 for Handbook.').waitFor({ timeout: 30_000 });

    const { order, taxLines } = await taxLinesOf(page.checkout.id);
    assert.deepEqual([order.taxAmount, order.totalAmount], [0, 4900]);
    assert.equal(taxLines.length, 1, JSON.stringify(taxLines));
    assert.equal(taxLines[0]?.reverseCharge, true);
    assert.equal(taxLines[0]?.taxAmount, 0);
    await page.close();
  });
});
