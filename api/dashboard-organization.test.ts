import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { extractLinks, waitForMail } from '../integrations/mail/testing.ts';
import { dashboardBrowserSuite, ownerPage, screenshotsDir } from './browser-testing.ts';

/** The organization section's pages in headless Chromium, against the real API. */
describe('dashboard organization (browser)', () => {
  const suite = dashboardBrowserSuite();
  const signedInOwner = () =>
    ownerPage(suite.browser, suite.api.url, { organizationName: 'Org Works' });

  /** Someone else, signed in outside the browser, who accepts an invitation sent to them. */
  async function acceptInvitationAs(email: string, invitationId: string) {
    const call = (path: string, data: unknown, cookie = '') =>
      fetch(`${suite.api.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: suite.api.url, cookie },
        body: JSON.stringify(data),
      });
    const signUp = await call('/api/auth/sign-up/email', {
      email,
      password: 'correct horse battery',
      name: 'Bea Member',
    });
    assert.equal(signUp.status, 200, await signUp.text());
    const cookie = signUp.headers
      .getSetCookie()
      .map((line) => line.split(';')[0])
      .join('; ');
    // A new account proves it owns the invited address with the token of the mailed link.
    const mail = await waitForMail({ to: email, subject: /invited to join/ });
    const link = extractLinks(mail).find((found) => found.includes(invitationId)) ?? '';
    const token = new URL(link).searchParams.get('token');
    const accepted = await call(
      '/api/auth/organization/accept-invitation',
      { invitationId, token },
      cookie,
    );
    assert.equal(accepted.status, 200, await accepted.text());
  }

  it('invites a member, who joins; the owner changes their role and removes them after confirming', async () => {
    const { page, tag } = await signedInOwner();
    await page.goto(`${suite.api.url}/organization/invitations`);
    await page.getByText('No invitations sent yet.').waitFor();

    await page.getByLabel('Email').fill('not an email');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByText('Enter an email address.').waitFor();
    assert.equal(await page.getByLabel('Email').inputValue(), 'not an email');

    const email = `member-${tag}@example.com`;
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Send invitation' }).click();
    const row = page.getByRole('row').filter({ hasText: email });
    await row.getByText('pending').waitFor();
    // The expiry is shown in the viewer's zone, the exact instant on hover.
    assert.match((await row.locator('time').getAttribute('title')) ?? '', /^\d{4}-\d\d-\d\dT/);
    await page.screenshot({
      path: join(screenshotsDir, 'dashboard-invitations.png'),
      fullPage: true,
    });

    const invitations = await page.request.get(
      `${suite.api.url}/api/auth/organization/list-invitations`,
    );
    const [invitation] = (await invitations.json()) as { id: string }[];
    assert.ok(invitation);
    await acceptInvitationAs(email, invitation.id);

    await page.goto(`${suite.api.url}/organization/members`);
    const role = page.getByLabel(`Role of ${email}`);
    await role.selectOption('admin');
    await page.waitForResponse((response) => response.url().includes('/list-members'));
    const members = await page.request.get(`${suite.api.url}/api/auth/organization/list-members`);
    const { members: listed } = (await members.json()) as {
      members: { role: string; user: { email: string } }[];
    };
    assert.equal(listed.find((member) => member.user.email === email)?.role, 'admin');
    // The only owner can be neither demoted nor removed: no controls on their row.
    assert.equal(await page.getByLabel(`Role of owner-${tag}@example.com`).count(), 0);
    await page.screenshot({ path: join(screenshotsDir, 'dashboard-members.png'), fullPage: true });

    await page
      .getByRole('row')
      .filter({ hasText: email })
      .getByRole('button', { name: 'Remove member' })
      .click();
    await page
      .getByRole('dialog', { name: 'Remove member?' })
      .getByRole('button', { name: 'Remove member' })
      .click();
    await page.getByRole('row').filter({ hasText: email }).waitFor({ state: 'detached' });
    await page.close();
  });

  it('cancels an invitation after confirming', async () => {
    const { page, tag } = await signedInOwner();
    await page.goto(`${suite.api.url}/organization/invitations`);
    await page.getByLabel('Email').fill(`later-${tag}@example.com`);
    await page.getByRole('button', { name: 'Send invitation' }).click();
    const row = page.getByRole('row').filter({ hasText: `later-${tag}@example.com` });
    await row.getByRole('button', { name: 'Resend' }).click();
    await row.getByRole('button', { name: 'Sent again' }).waitFor();
    await row.getByRole('button', { name: 'Cancel' }).click();
    await page
      .getByRole('dialog', { name: 'Cancel invitation?' })
      .getByRole('button', { name: 'Cancel invitation' })
      .click();
    await row.getByText('canceled').waitFor();
    await page.close();
  });

  it('creates a team, renames it, adds the owner to it and deletes it after confirming', async () => {
    const { page, tag } = await signedInOwner();
    await page.goto(`${suite.api.url}/organization/teams`);
    await page.getByLabel('Name').fill('Support');
    await page.getByRole('button', { name: 'Create team' }).click();
    await page.getByRole('link', { name: 'Support' }).click();
    await page.getByRole('heading', { level: 1, name: 'Support' }).waitFor();

    await page
      .getByLabel('Member to add')
      .selectOption({ label: `Ada Owner (owner-${tag}@example.com)` });
    await page.getByRole('button', { name: 'Add to team' }).click();
    await page.getByRole('cell', { name: `owner-${tag}@example.com` }).waitFor();

    await page.getByRole('textbox', { name: 'Name' }).fill('Customer support');
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByRole('heading', { level: 1, name: 'Customer support' }).waitFor();
    await page.screenshot({ path: join(screenshotsDir, 'dashboard-team.png'), fullPage: true });

    await page.getByRole('button', { name: 'Delete team' }).click();
    await page
      .getByRole('dialog', { name: 'Delete team?' })
      .getByRole('button', { name: 'Delete team' })
      .click();
    await page.getByRole('heading', { level: 1, name: 'Teams' }).waitFor();
    await page.getByRole('link', { name: 'Customer support' }).waitFor({ state: 'detached' });
    await page.close();
  });

  it('creates an access token from a scope grid with presets, shows it once, and deletes it', async () => {
    const { page } = await signedInOwner();
    await page.goto(`${suite.api.url}/organization/tokens`);
    await page.getByText('No access tokens yet.').waitFor();
    await page.getByLabel('Name').fill('CI deploys');
    await page.getByRole('button', { name: 'Create token' }).click();
    // No scope chosen: the API's own schema says so, by the scopes.
    const scopes = page.getByRole('group', { name: 'Scopes' });
    await scopes.getByRole('alert').waitFor();
    // A preset fills the grid: read-only checks every read column and no write one.
    await scopes.getByRole('button', { name: 'Read-only' }).click();
    const grid = scopes.getByRole('table', { name: 'Scopes by resource' });
    assert.equal(await grid.getByRole('checkbox', { checked: true }).count(), 21);
    assert.equal(await grid.getByLabel('orders:read').isChecked(), true);
    assert.equal(await grid.getByLabel('orders:write').isChecked(), false);
    await grid.getByRole('row', { name: 'Checkout links' }).waitFor();
    await page.screenshot({
      path: join(screenshotsDir, 'dashboard-token-scopes.png'),
      fullPage: true,
    });
    await scopes.getByRole('button', { name: 'Clear' }).click();
    // Write includes read: checking it checks read too.
    await page.getByLabel('products:write').check();
    assert.equal(await grid.getByLabel('products:read').isChecked(), true);
    await page.getByRole('button', { name: 'Create token' }).click();
    const token = await page.locator('.secret-once code').textContent();
    assert.match(token ?? '', /^polar_oat_/);
    await page.getByRole('button', { name: 'Copy token' }).waitFor();
    await page.screenshot({ path: join(screenshotsDir, 'dashboard-token.png'), fullPage: true });

    await page.getByRole('button', { name: 'Done' }).click();
    assert.equal(await page.getByText(token ?? '').count(), 0);
    await page.getByRole('button', { name: 'Delete token' }).click();
    await page
      .getByRole('dialog', { name: 'Delete token?' })
      .getByRole('button', { name: 'Delete token' })
      .click();
    await page.getByText('No access tokens yet.').waitFor();
    await page.close();
  });

  it('adds a webhook endpoint, shows its secret once, resets it, and deletes it after confirming', async () => {
    const { page } = await signedInOwner();
    await page.goto(`${suite.api.url}/organization/webhooks`);
    await page.getByLabel('URL').fill('ftp://example.com/hook');
    await page.getByLabel('order.paid').check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    // The scheme is the API's check: its refusal sits by the URL, the choices stay.
    await page.getByText("URL scheme should be 'https'").waitFor();
    assert.equal(await page.getByLabel('order.paid').isChecked(), true);

    await page.getByLabel('URL').fill('https://example.com/hook');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    // The creation's answer is the only one carrying the signing secret: shown until dismissed.
    const secret = (await page.locator('.secret-once code').textContent()) ?? '';
    assert.match(secret, /^whsec_/);
    await page.getByRole('button', { name: 'Copy signing secret' }).waitFor();
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('heading', { level: 1, name: 'https://example.com/hook' }).waitFor();
    await page.getByText('Nothing was sent to this endpoint yet.').waitFor();
    assert.equal(await page.getByText(secret).count(), 0);
    await page.screenshot({ path: join(screenshotsDir, 'dashboard-webhook.png'), fullPage: true });

    await page.getByRole('button', { name: 'Reset secret' }).click();
    await page
      .getByRole('dialog', { name: 'Reset secret?' })
      .getByRole('button', { name: 'Reset secret' })
      .click();
    const newSecret = (await page.locator('.secret-once code').textContent()) ?? '';
    assert.match(newSecret, /^whsec_/);
    assert.notEqual(newSecret, secret);
    await page.getByRole('button', { name: 'Done' }).click();
    assert.equal(await page.getByText(newSecret).count(), 0);

    await page.getByRole('button', { name: 'Delete endpoint' }).click();
    await page
      .getByRole('dialog', { name: 'Delete endpoint?' })
      .getByRole('button', { name: 'Delete endpoint' })
      .click();
    await page.getByText('No endpoints yet').waitFor();
    await page.close();
  });

  it('saves subscription settings, refusing retry days that are not ascending next to the field', async () => {
    const { page, organizationId } = await signedInOwner();
    await page.goto(`${suite.api.url}/organization/settings`);
    const days = page.getByLabel('Retry a failed renewal on days');
    await days.waitFor();
    assert.equal(await days.inputValue(), '2, 7, 14, 21');

    await days.fill('3, 1');
    await page.getByLabel('When the last retry fails').selectOption('unpaid');
    await page.getByRole('button', { name: 'Save subscription settings' }).click();
    await page.getByText('Retry days must be ascending.').waitFor();
    assert.equal(await days.getAttribute('aria-invalid'), 'true');

    await days.fill('1, 3, 5');
    await page.getByRole('button', { name: 'Save subscription settings' }).click();
    await page.waitForResponse(
      (response) => response.request().method() === 'PATCH' && response.ok(),
    );
    const saved = await page.request.get(`${suite.api.url}/v1/organizations/${organizationId}`);
    const { subscription_settings: settings } = (await saved.json()) as {
      subscription_settings: { dunning_retry_days: number[]; dunning_final_status: string };
    };
    assert.deepEqual(settings.dunning_retry_days, [1, 3, 5]);
    assert.equal(settings.dunning_final_status, 'unpaid');
    await page.screenshot({ path: join(screenshotsDir, 'dashboard-settings.png'), fullPage: true });
    await page.close();
  });
});
