import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { User } from '../db/entities/index.ts';
import { addLocalProviderUser } from '../devstack/oauth-provider.ts';
import { extractLinks, waitForMail } from '../integrations/mail/testing.ts';
import { dashboardBrowserSuite, ownerPage, screenshotsDir } from './browser-testing.ts';

const password = 'correct horse battery';
const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:130.0) Gecko/20100101 Firefox/130.0';

/** The signed-in user's account pages in headless Chromium, against the real API. */
describe('dashboard: account (browser)', () => {
  const suite = dashboardBrowserSuite();

  /** A sign-in from another device (Firefox, outside the browser): its session cookie. */
  async function signInElsewhere(email: string, withPassword: string) {
    const response = await fetch(`${suite.api.url}/api/auth/sign-in/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: suite.api.url, 'user-agent': firefox },
      body: JSON.stringify({ email, password: withPassword }),
    });
    return {
      status: response.status,
      cookie: response.headers
        .getSetCookie()
        .map((line) => line.split(';')[0])
        .join('; '),
    };
  }

  const sessionOf = async (cookie: string) =>
    (await fetch(`${suite.api.url}/api/auth/get-session`, { headers: { cookie } })).json();

  it('renames the user, changes the password, and revokes the session of another device', async () => {
    const { page, tag } = await ownerPage(suite.browser, suite.api.url);
    const email = `owner-${tag}@example.com`;
    await page.goto(`${suite.api.url}/`);
    await page.getByRole('link', { name: 'Account', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Profile' }).waitFor();
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Ada Renamed');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByText('Your profile is saved.').waitFor();
    assert.equal(
      await page.getByRole('textbox', { name: 'Name', exact: true }).inputValue(),
      'Ada Renamed',
    );
    const session = await (await page.request.get(`${suite.api.url}/api/auth/get-session`)).json();
    assert.equal(session.user.name, 'Ada Renamed');

    await page.getByRole('navigation', { name: 'Account' }).getByText('Password').click();
    await page.getByLabel('Current password').fill('not my password');
    await page.getByLabel('New password').fill('a brand new passphrase');
    await page.getByLabel('Sign out every other device').uncheck();
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByRole('alert').getByText('Invalid password').waitFor();
    await page.getByLabel('Current password').fill(password);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Your password is changed.').waitFor();
    assert.equal((await signInElsewhere(email, password)).status, 401, 'the old password');
    const elsewhere = await signInElsewhere(email, 'a brand new passphrase');
    assert.equal(elsewhere.status, 200, 'the new password');

    await page.getByRole('navigation', { name: 'Account' }).getByText('Sessions').click();
    const rows = page.getByRole('table', { name: 'Your sessions' }).locator('tbody tr');
    const other = rows.filter({ hasText: 'Firefox on Linux' });
    await other.waitFor();
    assert.equal(await rows.count(), 2);
    await rows.filter({ hasText: 'this browser' }).waitFor();
    // This browser's own session is ended by signing out, not from here.
    assert.equal(await rows.filter({ hasText: 'this browser' }).getByRole('button').count(), 0);
    await page.screenshot({ path: join(screenshotsDir, 'dashboard-sessions.png'), fullPage: true });
    await other.getByRole('button', { name: 'Revoke session' }).click();
    await page
      .getByRole('dialog', { name: 'Revoke session?' })
      .getByRole('button', { name: 'Revoke session' })
      .click();
    await other.waitFor({ state: 'detached' });
    assert.equal(await rows.count(), 1);
    assert.equal(await sessionOf(elsewhere.cookie), null, 'the other device is signed out');
    assert.notEqual(await sessionOf(await cookiesOf(page)), null, 'this browser is not');
    await page.close();
  });

  it('links a GitHub account through the provider and unlinks it', async () => {
    const { page, tag } = await ownerPage(suite.browser, suite.api.url);
    const github = process.env.TOLLGATE_OAUTH_GITHUB_BASE_URL;
    assert.ok(github, 'the test stack runs a local GitHub');
    const account = {
      id: String(randomInt(1e9, 2 ** 47)),
      email: `owner-${tag}@example.com`,
      emailVerified: true,
      name: 'Ada at GitHub',
    };
    await addLocalProviderUser(github, account);
    // At GitHub the person signs in as this account (the local GitHub picks it by login hint).
    const atGitHub = (url: URL) => url.href.startsWith(`${github}/login/oauth/authorize`);
    await page.route(atGitHub, (route) => {
      const url = new URL(route.request().url());
      if (url.searchParams.has('login_hint')) return route.continue();
      url.searchParams.set('login_hint', account.id);
      return route.fulfill({ status: 302, headers: { location: url.href } });
    });

    await page.goto(`${suite.api.url}/account/linked-accounts`);
    const table = page.getByRole('table', { name: 'Linked accounts' });
    await table.getByRole('cell', { name: 'Email and password' }).waitFor();
    await page.getByRole('button', { name: 'Link GitHub' }).click();
    await page.waitForURL(`${suite.api.url}/account/linked-accounts`);
    const linked = table.locator('tbody tr').filter({ hasText: 'GitHub' });
    await linked.getByRole('cell', { name: account.id }).waitFor();
    await page.screenshot({
      path: join(screenshotsDir, 'dashboard-linked-accounts.png'),
      fullPage: true,
    });

    await linked.getByRole('button', { name: 'Unlink GitHub' }).click();
    await page
      .getByRole('dialog', { name: 'Unlink GitHub?' })
      .getByRole('button', { name: 'Unlink GitHub' })
      .click();
    await linked.waitFor({ state: 'detached' });
    const accounts = await (
      await page.request.get(`${suite.api.url}/api/auth/list-accounts`)
    ).json();
    assert.deepEqual(
      accounts.map((each: { providerId: string }) => each.providerId),
      ['credential'],
    );
    await page.close();
  });

  it('deletes the account once the mailed link is opened, after the password is confirmed', async () => {
    const { page, tag, userId } = await ownerPage(suite.browser, suite.api.url);
    const email = `owner-${tag}@example.com`;
    await page.goto(`${suite.api.url}/account/delete`);
    await page.getByRole('button', { name: 'Delete account…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete your account?' });
    await dialog.getByLabel('Password').fill('not my password');
    await dialog.getByRole('button', { name: 'Delete account' }).click();
    await dialog.getByText('Invalid password').waitFor();
    await dialog.getByLabel('Password').fill(password);
    await dialog.getByRole('button', { name: 'Delete account' }).click();
    await page.getByText(`We sent a link to ${email}`).waitFor();
    assert.equal(await suite.api.orm.em.fork().count(User, { id: userId }), 1, 'not yet');

    const mail = await waitForMail({ to: email, subject: /deleting your account/ });
    const link = extractLinks(mail).find((found) => found.includes('/delete-user/callback'));
    assert.ok(link);
    await page.goto(link);
    await page.getByText('Your account is deleted.').waitFor();
    assert.equal(new URL(page.url()).pathname, '/sign-in');
    assert.equal(await suite.api.orm.em.fork().count(User, { id: userId }), 0);
    await page.close();
  });
});

/** The browser's cookies for the API, as a Cookie header. */
async function cookiesOf(page: Page) {
  const cookies = await page.context().cookies();
  return cookies.map((cookie) => `${cookie.name}=${cookie.value}`).join('; ');
}
