import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { dashboardBrowserSuite, ownerPage, screenshotsDir } from './browser-testing.ts';

/**
 * The customer page shows the customer's balance and its ledger, and "Add credit" credits it
 * with a reason after confirming, the entry naming who added it (headless Chromium).
 */
describe('dashboard: customer balance (browser)', () => {
  const suite = dashboardBrowserSuite();

  it('adds credit with a reason, after confirming, and lists it in the ledger', async () => {
    const { page, post, tag } = await ownerPage(suite.browser, suite.api.url);
    const customer = await post('/v1/customers/', {
      email: `grace-${tag}@example.com`,
      name: 'Grace Hopper',
    });

    await page.goto(`${suite.api.url}/customers/${customer.id}`);
    const balance = page.getByRole('region', { name: 'Balance' });
    await balance.getByText('No balance entries.').waitFor();
    await balance.getByRole('button', { name: 'Add credit' }).click();
    const form = page.getByRole('form', { name: 'Add credit' });
    await form.getByRole('button', { name: 'Add credit…' }).click();
    await form.getByText('Say why: the entry keeps it.').waitFor();
    await form.getByLabel(/^Amount/).fill('12.50');
    await form.getByLabel(/^Reason/).fill('Late delivery');
    await form.getByRole('button', { name: 'Add credit…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add credit?' });
    await dialog.getByRole('button', { name: 'Add credit', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });

    const entry = balance.getByRole('row').filter({ hasText: 'Late delivery' });
    await entry.getByText('$12.50').waitFor();
    await entry.getByText('Adjustment').waitFor();
    // Who added it is kept with the entry and shown: the owner who signed in.
    await entry.getByRole('cell', { name: 'Ada Owner', exact: true }).waitFor();
    const read = await page.request.get(`${suite.api.url}/v1/customers/${customer.id}/balance`);
    assert.deepEqual(await read.json(), { balance: 1250, currency: 'usd' });
    await page.screenshot({
      path: join(screenshotsDir, 'dashboard-customer-balance.png'),
      fullPage: true,
    });
  });
});
