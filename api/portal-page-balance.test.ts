import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { callV1, createSeller } from '../commerce/testing.ts';
import { dashboardBrowserSuite, screenshotsDir } from './browser-testing.ts';

/**
 * The hosted customer portal shows the customer's balance with the seller: the credit a seller's
 * adjustment gave is on the overview, with what it is for (headless Chromium).
 */
describe('customer portal page: balance (browser)', () => {
  const suite = dashboardBrowserSuite();

  it('shows the credit the seller gave on the overview, and nothing without a balance', async () => {
    const seller = await createSeller(suite.api);
    const customer = await seller.polar.customers.create({
      email: `${randomUUID()}@example.com`,
    });
    const page = await suite.browser.newPage();
    const openPortal = async () => {
      const session = await seller.polar.customerSessions.create({ customerId: customer.id });
      await page.goto(session.customerPortalUrl);
      await page.getByRole('heading', { name: 'Overview' }).waitFor();
      await page.getByText('No orders yet.').waitFor();
    };

    await openPortal();
    assert.equal(await page.getByTestId('account-balance').count(), 0, 'no balance, no line');

    const credited = await callV1(
      suite.api,
      seller.token,
      'POST',
      `/v1/customers/${customer.id}/balance/adjustments`,
      { amount: 1250, currency: 'usd', reason: 'Late delivery' },
    );
    assert.equal(credited.status, 201, JSON.stringify(credited.body));
    await openPortal();
    const balance = page.getByTestId('account-balance');
    await balance.getByText('$12.50').waitFor();
    assert.equal(
      await balance.textContent(),
      'Account credit: $12.50, used by your next order before your card.',
    );
    await page.screenshot({ path: join(screenshotsDir, 'portal-balance.png'), fullPage: true });
    await page.close();
  });
});
