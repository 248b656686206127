import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { User } from '../db/entities/index.ts';
import { dashboardBrowserSuite, ownerPage, screenshotsDir } from './browser-testing.ts';

const password = 'correct horse battery';

/** The Admin section (Better Auth's admin plugin) in headless Chromium, against the real API. */
describe('dashboard: admin (browser)', () => {
  const suite = dashboardBrowserSuite();

  const post = (path: string, data: unknown, cookie = '') =>
    fetch(`${suite.api.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: suite.api.url, cookie },
      body: JSON.stringify(data),
    });

  /** Someone who signed up (outside the browser), with an organization of their own. */
  async function someone(email: string, name: string) {
    const signedUp = await post('/api/auth/sign-up/email', { email, password, name });
    const answer = await signedUp.text();
    assert.equal(signedUp.status, 200, answer);
    const { user } = JSON.parse(answer) as { user: { id: string } };
    const cookie = signedUp.headers
      .getSetCookie()
      .map((line) => line.split(';')[0])
      .join('; ');
    const slug = email.replace(/\W+/g, '-');
    const created = await post('/api/auth/organization/create', { name, slug }, cookie);
    assert.equal(created.status, 200, await created.text());
    return { id: user.id, email, name, cookie };
  }

  /** A page signed in as a platform admin (the role set where the server reads it). */
  async function adminPage() {
    const owner = await ownerPage(suite.browser, suite.api.url, { organizationName: 'Ops' });
    await suite.api.orm.em.fork().nativeUpdate(User, { id: owner.userId }, { role: 'admin' });
    return owner;
  }

  const signIn = (email: string) => post('/api/auth/sign-in/email', { email, password });

  it('searches users, bans one (whose sign-in is refused), lifts the ban and sets a role', async () => {
    const { page, tag } = await adminPage();
    const mallory = await someone(`mallory-${tag}@example.com`, 'Mallory Banned');
    await someone(`bea-${tag}@example.com`, 'Bea Bystander');

    await page.goto(`${suite.api.url}/`);
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Users' })
      .click();
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    await page.getByLabel('Email contains').fill(tag);
    const rows = page.getByRole('table', { name: 'Users' }).locator('tbody tr');
    // The admin and the two users made here, and nobody else of the run.
    await page.waitForURL(/email=/);
    await rows.filter({ hasText: mallory.email }).waitFor();
    await page.getByText('3 in all').waitFor();
    await page.getByLabel('Email contains').fill(`mallory-${tag}`);
    await page.getByText('1 in all').waitFor();
    await page.screenshot({
      path: join(screenshotsDir, 'dashboard-admin-users.png'),
      fullPage: true,
    });

    await page.getByRole('link', { name: 'Mallory Banned' }).click();
    await page.getByRole('heading', { level: 1, name: 'Mallory Banned' }).waitFor();
    const sessions = page.getByRole('table', { name: `Sessions of ${mallory.email}` });
    await sessions.locator('tbody tr').first().waitFor();
    await page.getByLabel('Reason').fill('Card testing');
    await page.getByLabel('For').selectOption({ label: '1 day' });
    await page.getByRole('button', { name: 'Ban user', exact: true }).click();
    const ban = page.getByRole('region', { name: 'Ban' });
    await ban.getByText('Card testing').waitFor();
    await page.getByRole('button', { name: 'Unban user' }).waitFor();
    // Banned: every session of theirs ended, and signing in is refused.
    await sessions.getByText('No sessions.').waitFor();
    const refused = await signIn(mallory.email);
    assert.equal(refused.status, 403);
    assert.equal(((await refused.json()) as { code: string }).code, 'BANNED_USER');
    const banned = await suite.api.orm.em.fork().findOneOrFail(User, { id: mallory.id });
    assert.equal(banned.banReason, 'Card testing');
    const day = banned.banExpires ? banned.banExpires.getTime() - Date.now() : 0;
    assert.ok(day > 23 * 3_600_000 && day <= 24 * 3_600_000, 'banned for a day');
    await page.screenshot({
      path: join(screenshotsDir, 'dashboard-admin-user.png'),
      fullPage: true,
    });

    await page.getByRole('button', { name: 'Unban user' }).click();
    await page.getByRole('button', { name: 'Ban user', exact: true }).waitFor();
    assert.equal((await signIn(mallory.email)).status, 200);

    await page.getByRole('combobox', { name: 'Role', exact: true }).selectOption('admin');
    const roleSet = page.waitForResponse((response) => response.url().endsWith('/set-role'));
    await page.getByRole('button', { name: 'Set role' }).click();
    assert.ok((await roleSet).ok());
    await page.goto(`${suite.api.url}/admin/users?email=${encodeURIComponent(mallory.email)}`);
    await rows.getByRole('cell', { name: 'admin', exact: true }).waitFor();
    await page.close();
  });

  it('revokes a session of a user, impersonates them, and stops', async () => {
    const { page, tag } = await adminPage();
    const bea = await someone(`bea-${tag}@example.com`, 'Bea Impersonated');
    await page.goto(`${suite.api.url}/admin/users/${bea.id}`);
    const sessions = page.getByRole('table', { name: `Sessions of ${bea.email}` });
    const row = sessions.locator('tbody tr').first();
    await row.getByRole('button', { name: 'Revoke session' }).click();
    await page
      .getByRole('dialog', { name: 'Revoke session?' })
      .getByRole('button', { name: 'Revoke session' })
      .click();
    await sessions.getByText('No sessions.').waitFor();
    const signedOut = await fetch(`${suite.api.url}/api/auth/get-session`, {
      headers: { cookie: bea.cookie },
    });
    assert.equal(await signedOut.json(), null);

    // Bea's dashboard asks whether she is an admin: the answer decides the Admin section.
    const asked = page.waitForResponse((response) => response.url().endsWith('/has-permission'));
    await page.getByRole('button', { name: 'Impersonate' }).click();
    const banner = page.getByRole('region', { name: 'Impersonation' });
    await banner.getByText(`You are acting as Bea Impersonated (${bea.email}).`).waitFor();
    // The dashboard is Bea's: her organization, and no Admin section (she is no admin).
    await page
      .getByLabel('Organization')
      .getByRole('option', { name: 'Bea Impersonated' })
      .waitFor({
        state: 'attached',
      });
    assert.deepEqual(await (await asked).json(), { error: null, success: false });
    assert.equal(await page.getByRole('heading', { name: 'Admin' }).count(), 0);
    await page.screenshot({
      path: join(screenshotsDir, 'dashboard-impersonation.png'),
      fullPage: true,
    });

    await banner.getByRole('button', { name: 'Stop impersonating' }).click();
    await page.waitForURL(`${suite.api.url}/admin/users/${bea.id}`);
    await page.getByRole('heading', { level: 1, name: 'Bea Impersonated' }).waitFor();
    assert.equal(await page.getByRole('region', { name: 'Impersonation' }).count(), 0);
    const back = await (await page.request.get(`${suite.api.url}/api/auth/get-session`)).json();
    assert.equal(back.session.impersonatedBy, null);
    assert.notEqual(back.user.id, bea.id);
    await page.close();
  });

  it('shows a user who is not an admin no Admin section, and the users list refuses them', async () => {
    const { page } = await ownerPage(suite.browser, suite.api.url);
    const asked = page.waitForResponse((response) => response.url().endsWith('/has-permission'));
    await page.goto(`${suite.api.url}/admin/users`);
    await page.getByText('Could not load users').waitFor();
    assert.equal(((await (await asked).json()) as { success: boolean }).success, false);
    assert.equal(await page.getByRole('heading', { name: 'Admin' }).count(), 0);
    await page.close();
  });
});
