import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { organizationMessages } from '../accounts/organization/errors.ts';
import { Invitation, Member, User } from '../db/entities/index.ts';
import { extractLinks, waitForMail } from '../integrations/mail/testing.ts';
import { dashboardBrowserSuite, ownerPage, screenshotsDir } from './browser-testing.ts';

const password = 'correct horse battery';

/** The invitation mail's link (/accept-invitation/<id>?token=…), in headless Chromium. */
describe('dashboard invitations (browser)', () => {
  const suite = dashboardBrowserSuite();

  /** An owner's organization and an invitation to `member-<tag>@example.com` from it. */
  async function invited(role: string) {
    const owner = await ownerPage(suite.browser, suite.api.url, {
      organizationName: 'Invite Works',
    });
    const email = `member-${owner.tag}@example.com`;
    const invitation = await owner.post('/api/auth/organization/invite-member', { email, role });
    await owner.page.close();
    // The owner's session is not the invitee's: the browser is a new visitor's now.
    await suite.browser.clearCookies();
    return { email, invitationId: invitation.id as string, organizationId: owner.organizationId };
  }

  const membersOf = (organizationId: string, email: string) =>
    suite.api.orm.em.fork().find(Member, { organization: organizationId, user: { email } });

  it('leads a new visitor from the mailed link through sign-up to accepting, into the organization', async () => {
    const { email, invitationId, organizationId } = await invited('admin');
    const mail = await waitForMail({ to: email, subject: /invited to join/ });
    const link = extractLinks(mail).find((found) => found.includes(invitationId));
    assert.ok(link, mail.text);

    const page = await suite.browser.newPage();
    await page.goto(link);
    // Signed out: sign in first, or create an account, and come back to the invitation.
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByText('You are invited to join an organization.').waitFor();
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByLabel('Name').fill('Bea Member');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();

    await page.getByRole('heading', { level: 1, name: 'Join Invite Works' }).waitFor();
    const back = new URL(page.url());
    assert.equal(back.pathname, `/accept-invitation/${invitationId}`);
    assert.equal(back.searchParams.get('token'), new URL(link).searchParams.get('token'));
    const details = page.locator('dl');
    assert.match((await details.textContent()) ?? '', /Roleadmin/);
    assert.match((await details.textContent()) ?? '', /Invited byowner-[0-9a-f]+@example\.com/);
    await page.screenshot({ path: join(screenshotsDir, 'dashboard-accept-invitation.png') });

    await page.getByRole('button', { name: 'Accept' }).click();
    await page.getByRole('heading', { level: 1, name: 'Invite Works' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/');
    const switcher = page.getByLabel('Organization', { exact: true });
    assert.equal(await switcher.locator('option:checked').textContent(), 'Invite Works');

    const [member, ...others] = await membersOf(organizationId, email);
    assert.equal(member?.role, 'admin');
    assert.equal(others.length, 0);
    // The mailed token proved the address, as a verification link would.
    const user = await suite.api.orm.em.fork().findOneOrFail(User, { email });
    assert.equal(user.emailVerified, true);
    await page.close();
  });

  it('refuses an unverified account that opens the link without its token, or with a forged one', async () => {
    const { email, invitationId, organizationId } = await invited('member');
    const page = await suite.browser.newPage();
    // The invitee's address typed into a sign-up by someone who does not read its mail.
    const signUp = await page.request.post(`${suite.api.url}/api/auth/sign-up/email`, {
      headers: { origin: suite.api.url },
      data: { email, password, name: 'Not The Invitee' },
    });
    assert.equal(signUp.status(), 200, await signUp.text());

    const refusal =
      organizationMessages.EMAIL_VERIFICATION_REQUIRED_BEFORE_ACCEPTING_OR_REJECTING_INVITATION;
    for (const query of ['', '?token=forged.token']) {
      await page.goto(`${suite.api.url}/accept-invitation/${invitationId}${query}`);
      await page.getByRole('heading', { level: 1, name: 'Join Invite Works' }).waitFor();
      await page.getByRole('button', { name: 'Accept' }).click();
      const alert = page.getByRole('alert').filter({ hasText: 'Could not accept the invitation' });
      await alert.getByText(refusal).waitFor();
      await alert.getByText('Open the link in the invitation email itself').waitFor();
    }
    await page.screenshot({
      path: join(screenshotsDir, 'dashboard-accept-invitation-refused.png'),
    });

    await page.getByRole('button', { name: 'Decline' }).click();
    const declineAlert = page
      .getByRole('alert')
      .filter({ hasText: 'Could not decline the invitation' });
    await declineAlert.getByText(refusal).waitFor();

    assert.deepEqual(await membersOf(organizationId, email), []);
    const invitation = await suite.api.orm.em
      .fork()
      .findOneOrFail(Invitation, { id: invitationId });
    assert.equal(invitation.status, 'pending');
    await page.close();
  });

  it('tells an account with another address that the invitation is not theirs, and signs it out to switch', async () => {
    const { email, invitationId, organizationId } = await invited('member');
    const mail = await waitForMail({ to: email, subject: /invited to join/ });
    const link = extractLinks(mail).find((found) => found.includes(invitationId)) ?? '';
    const otherEmail = `someone-else-${email}`;
    const page = await suite.browser.newPage();
    const signUp = await page.request.post(`${suite.api.url}/api/auth/sign-up/email`, {
      headers: { origin: suite.api.url },
      data: { email: otherEmail, password, name: 'Someone Else' },
    });
    assert.equal(signUp.status(), 200, await signUp.text());

    // Even with the mailed token: it proves the invited address, not this account's.
    await page.goto(link);
    const alert = page.getByRole('alert').filter({ hasText: 'This invitation cannot be opened' });
    await alert
      .getByText(organizationMessages.YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION)
      .waitFor();
    await page.getByRole('button', { name: 'Accept' }).waitFor({ state: 'detached' });
    await alert.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    const signIn = new URL(page.url());
    assert.equal(signIn.searchParams.get('next'), new URL(link).pathname + new URL(link).search);

    assert.deepEqual(await membersOf(organizationId, otherEmail), []);
    await page.close();
  });
});
