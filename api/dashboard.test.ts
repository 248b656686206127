import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { buildDashboardIfStale } from '../devstack/dashboard.ts';
import { launchTestBrowser, screenshotsDir, startDashboardApi } from './browser-testing.ts';

/**
 * The seller dashboard in headless Chromium (Debian's package; `npm test` installs it when
 * missing), against the real API serving the built dashboard.
 */
describe('dashboard (browser)', () => {
  let api: Awaited<ReturnType<typeof startDashboardApi>>;
  let browser: Awaited<ReturnType<typeof launchTestBrowser>>;

  before(async () => {
    await buildDashboardIfStale(() => {});
    api = await startDashboardApi();
    browser = await launchTestBrowser();
  });

  // Each test is a new visitor: nobody signed in.
  beforeEach(() => browser.clearCookies());

  after(async () => {
    await browser?.closeAndForget();
    await api?.close();
  });

  const newEmail = () => `owner-${randomBytes(5).toString('hex')}@example.com`;

  async function fillSignUp(page: Page, email: string, password: string) {
    await page.goto(`${api.url}/`);
    // Signed out, any page leads to sign-in, which links to sign-up.
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByLabel('Name').fill('Ada Lovelace');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
  }

  it('signs up, creates an organization and lands on its home page', async () => {
    const page = await browser.newPage();
    const email = newEmail();
    await fillSignUp(page, email, 'correct horse battery');

    await page.getByRole('heading', { name: 'Create your organization' }).waitFor();
    await page.getByLabel('Organization name').fill('Analytical Engines');
    await page.getByRole('button', { name: 'Create organization' }).click();

    await page.getByRole('heading', { level: 1, name: 'Analytical Engines' }).waitFor();
    const switcher = page.getByLabel('Organization', { exact: true });
    assert.equal(await switcher.locator('option:checked').textContent(), 'Analytical Engines');
    const home = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Home' });
    assert.equal(await home.getAttribute('aria-current'), 'page');
    // The address is not verified yet: the banner offers a new link.
    await page.getByRole('button', { name: 'Resend the link' }).click();
    await page.getByText('A new link is on its way.').waitFor();
    await page.screenshot({ path: join(screenshotsDir, 'dashboard-home.png'), fullPage: true });

    // The session survives a reload; the sidebar navigates without one.
    await page.reload();
    await page.getByRole('link', { name: 'System status' }).click();
    await page.getByRole('heading', { level: 1, name: 'System status' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/system');
    await page.close();
  });

  it('creates a second organization from the switcher and switches back to the first', async () => {
    const page = await browser.newPage();
    await fillSignUp(page, newEmail(), 'correct horse battery');
    await page.getByLabel('Organization name').fill('First Works');
    await page.getByRole('button', { name: 'Create organization' }).click();
    await page.getByRole('heading', { level: 1, name: 'First Works' }).waitFor();

    const switcher = page.getByLabel('Organization', { exact: true });
    await switcher.selectOption({ label: '+ New organization…' });
    await page.getByRole('heading', { level: 1, name: 'New organization' }).waitFor();
    await page.getByLabel('Organization name').fill('Second Works');
    await page.getByRole('button', { name: 'Create organization' }).click();
    await page.getByRole('heading', { level: 1, name: 'Second Works' }).waitFor();

    await switcher.selectOption({ label: 'First Works' });
    await page.getByRole('heading', { level: 1, name: 'First Works' }).waitFor();
    // The choice is the session's: a reload keeps it.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'First Works' }).waitFor();
    await page.close();
  });

  it('shows a refused sign-up next to the field it names and keeps what was typed', async () => {
    const page = await browser.newPage();
    const email = newEmail();
    await fillSignUp(page, email, 'short');

    const passwordError = page.locator('#field-password-error');
    await passwordError.waitFor();
    assert.equal(await passwordError.textContent(), 'Password too short');
    assert.equal(await page.getByLabel('Password').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.getByLabel('Email').inputValue(), email);
    assert.equal(await page.getByLabel('Name').inputValue(), 'Ada Lovelace');
    await page.screenshot({ path: join(screenshotsDir, 'dashboard-sign-up-refused.png') });
    await page.close();
  });

  it('signs out to the sign-in page and signs back in to the same organization', async () => {
    const page = await browser.newPage();
    const email = newEmail();
    await fillSignUp(page, email, 'correct horse battery');
    await page.getByLabel('Organization name').fill('Difference Engines');
    await page.getByRole('button', { name: 'Create organization' }).click();
    await page.getByRole('heading', { level: 1, name: 'Difference Engines' }).waitFor();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').getByText('Invalid email or password').waitFor();
    assert.equal(await page.getByLabel('Email').inputValue(), email);

    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Difference Engines' }).waitFor();
    await page.close();
  });
});
