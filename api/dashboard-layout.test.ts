import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { dashboardBrowserSuite, ownerPage, screenshotsDir } from './browser-testing.ts';

/** The frame at phone width, and refusals worded for people, in headless Chromium. */
describe('dashboard layout and messages (browser)', () => {
  const suite = dashboardBrowserSuite();

  it('hides the sidebar behind a menu button at phone width, closing it on navigation', async () => {
    const { page } = await ownerPage(suite.browser, suite.api.url);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${suite.api.url}/`);
    const menu = page.getByRole('button', { name: 'Menu' });
    await menu.waitFor();
    const nav = page.getByRole('navigation', { name: 'Main' });
    assert.equal(await nav.isVisible(), false);
    await menu.click();
    assert.equal(await menu.getAttribute('aria-expanded'), 'true');
    await nav.getByRole('link', { name: 'Orders' }).waitFor();
    await page.screenshot({ path: join(screenshotsDir, 'dashboard-phone-menu.png') });
    await nav.getByRole('link', { name: 'Orders' }).click();
    await page.getByRole('heading', { level: 1, name: 'Orders' }).waitFor();
    await nav.waitFor({ state: 'hidden' });
    // Nothing is wider than the phone: wide tables scroll inside themselves.
    const width = Number(await page.evaluate('document.documentElement.scrollWidth'));
    assert.ok(width <= 390, `the page is ${width}px wide`);

    await page.setViewportSize({ width: 1280, height: 800 });
    await menu.waitFor({ state: 'hidden' });
    await nav.waitFor();
    await page.close();
  });

  it("words a refusal with the field's name instead of zod's text", async () => {
    const { page } = await ownerPage(suite.browser, suite.api.url);
    await page.goto(`${suite.api.url}/products/new`);
    await page.getByLabel('Name').fill('ab');
    await page.getByRole('button', { name: 'Create product' }).click();
    await page.getByText('Name must be at least 3 characters').waitFor();
    assert.equal(await page.getByText(/Too small/).count(), 0);
    await page.close();
  });
});
