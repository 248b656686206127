import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { productWithBenefits, uploadDownloadable } from '../commerce/benefit-grants/testing.ts';
import { buy, buyerClient, buyerDetails } from '../commerce/orders/testing.ts';
import { declinedRenewal } from '../commerce/subscriptions/testing.ts';
import { callV1, createSeller } from '../commerce/testing.ts';
import { eventually } from '../devstack/eventually.ts';
import { issueDiscordGuildToken } from '../domain/benefit-properties.ts';
import { extractLinks, waitForMail } from '../integrations/mail/testing.ts';
import { dashboardBrowserSuite, screenshotsDir, sellerPage } from './browser-testing.ts';

/** A phone's width: the portal must work there without sideways scrolling. */
const phone = { width: 375, height: 812 };

async function assertFitsWidth(page: Page) {
  const width = await page.evaluate<number>('document.documentElement.scrollWidth');
  assert.ok(width <= phone.width, `the page is ${width}px wide at ${phone.width}px`);
}

/**
 * The hosted customer portal in headless Chromium, at a phone's width: a buyer signs in with the
 * link mailed to them and runs their subscription, downloads their files and frees a license
 * key's activation. The API is the dashboard test API (its public URL is its own address, so
 * the mailed links and download URLs open here).
 */
describe('customer portal page (browser)', () => {
  const suite = dashboardBrowserSuite();

  /** A link of a mail the worker wrote (at its public URL), at this test API's address. */
  function mailedLink(mail: { text: string }, path: string) {
    const mailed = extractLinks(mail).find((url) => url.includes(path));
    assert.ok(mailed, `the mail carries a ${path} link: ${mail.text}`);
    const { pathname, search } = new URL(mailed);
    return `${suite.api.url}${pathname}${search}`;
  }

  async function phonePage() {
    const page = await suite.browser.newPage();
    await page.setViewportSize(phone);
    return page;
  }

  it('signs in with the mailed link, cancels the subscription with a reason, keeps it, adds a card and changes the plan', async () => {
    const seller = await createSeller(suite.api);
    const organization = await seller.polar.organizations.get({ id: seller.organizationId });
    const product = await seller.polar.products.create({
      name: 'Pro plan',
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount: 2900 }],
    });
    const business = await seller.polar.products.create({
      name: 'Business plan',
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount: 4900 }],
    });
    const details = buyerDetails();
    const email = details.customerEmail as string;
    const { checkout } = await buy(suite.api, seller, product.id, details);
    assert.equal(checkout.status, 'succeeded');
    const subscriptionId = checkout.subscriptionId as string;
    assert.ok(subscriptionId, 'the checkout started a subscription');

    const page = await phonePage();
    await page.goto(`${suite.api.url}/portal/${organization.slug}`);
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
    await page.getByRole('heading', { name: 'Check your mail' }).waitFor();
    await assertFitsWidth(page);
    await page.screenshot({ path: join(screenshotsDir, 'portal-sign-in.png'), fullPage: true });

    const mail = await waitForMail({ to: email, subject: /^Sign in to /, timeoutMs: 30_000 });
    const link = mailedLink(mail, '/portal/sign-in?token=');
    await page.goto(link);
    await page.waitForURL(`${suite.api.url}/portal/${organization.slug}`);
    await page.getByRole('heading', { name: 'Your purchases' }).waitFor();
    await page.getByText(email).waitFor();
    // The link works once: opening it again signs no one in.
    const again = await phonePage();
    await again.goto(link);
    await again.getByText(/sign-in link has expired or was already used/).waitFor();
    await again.close();

    await page.getByRole('link', { name: 'Subscriptions', exact: true }).click();
    const card = page.getByRole('article', { name: 'Pro plan' });
    await card.getByText(/^Next charge \$29\.00 on /).waitFor();
    // The card paid with at checkout is the one on file.
    await card.getByText(/4242/).waitFor();
    await assertFitsWidth(page);
    await page.screenshot({
      path: join(screenshotsDir, 'portal-subscription.png'),
      fullPage: true,
    });

    await card.getByRole('button', { name: 'Cancel subscription' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel Pro plan?' });
    await dialog.getByLabel(/^Reason/).selectOption({ label: 'Too expensive' });
    await dialog.getByLabel(/^Anything we could do better/).fill('Cheaper elsewhere');
    await assertFitsWidth(page);
    await dialog.getByRole('button', { name: 'Cancel subscription' }).click();
    const keep = card.getByRole('button', { name: 'Keep subscription' });
    await keep.waitFor();
    await card
      .getByText(/^Ends on .*, no further charges$/)
      .first()
      .waitFor();
    const canceled = await seller.polar.subscriptions.get({ id: subscriptionId });
    assert.equal(canceled.cancelAtPeriodEnd, true);
    assert.equal(canceled.customerCancellationReason, 'too_expensive');
    assert.equal(canceled.customerCancellationComment, 'Cheaper elsewhere');
    await page.screenshot({ path: join(screenshotsDir, 'portal-canceling.png'), fullPage: true });

    await keep.click();
    await card.getByRole('button', { name: 'Cancel subscription' }).waitFor();
    await card.getByText(/^Next charge \$29\.00 on /).waitFor();
    const kept = await seller.polar.subscriptions.get({ id: subscriptionId });
    assert.equal(kept.cancelAtPeriodEnd, false);
    assert.equal(kept.status, 'active');

    // Cards: the one paid with is listed; a declined card is refused in the form, a good one
    // saved (the same test card: still one card).
    await page.getByRole('link', { name: 'Payment methods', exact: true }).click();
    const cards = page.getByRole('region', { name: 'Payment methods' }).getByRole('listitem');
    await cards.filter({ hasText: '4242' }).waitFor();
    await page.getByRole('button', { name: 'Add a card' }).click();
    const adding = page.getByRole('dialog', { name: 'Add a card' });
    await adding.getByRole('radio', { name: /0002/ }).check();
    await adding.getByRole('button', { name: 'Save card' }).click();
    await adding.getByRole('alert').waitFor();
    await adding.getByRole('radio', { name: /4242/ }).check();
    await adding.getByRole('button', { name: 'Save card' }).click();
    await page.getByText('The card was saved.').waitFor();
    await cards.filter({ hasText: '4242' }).waitFor();
    await assertFitsWidth(page);
    await page.getByRole('link', { name: 'Subscriptions', exact: true }).click();

    // Another plan of the seller's storefront.
    await card.getByRole('button', { name: 'Change plan' }).click();
    const plans = page.getByRole('dialog', { name: 'Change plan' });
    await plans.getByLabel('New plan').selectOption({ label: 'Business plan — $49.00 / month' });
    await plans.getByRole('button', { name: 'Change plan' }).click();
    await page
      .getByRole('article', { name: 'Business plan' })
      .getByText('$49.00')
      .first()
      .waitFor();
    const changed = await seller.polar.subscriptions.get({ id: subscriptionId });
    assert.equal(changed.productId, business.id);
    await page.close();
  });

  it('downloads a granted file, deactivates a license key activation, edits billing details and opens an invoice', async () => {
    const seller = await createSeller(suite.api);
    const contents = Buffer.from('Read me first.\n');
    const file = await uploadDownloadable(suite.api, seller, 'manual.txt', contents);
    const files = await seller.polar.benefits.create({
      type: 'downloadables',
      description: 'The manual',
      properties: { files: [file.id] },
    });
    const keys = await seller.polar.benefits.create({
      type: 'license_keys',
      description: 'App license',
      properties: { prefix: 'APP', activations: { limit: 2, enableCustomerAdmin: true } },
    });
    const product = await productWithBenefits(seller, [files.id, keys.id]);
    const { order } = await buy(suite.api, seller, product.id);
    assert.ok(order, 'the purchase made an order');
    const [licenseKey] = (
      await eventually(
        () => seller.polar.licenseKeys.list({ benefitId: keys.id }),
        (page) => page.result.items.length === 1,
        { what: 'the license key granted' },
      )
    ).result.items;
    assert.ok(licenseKey);
    const activation = await buyerClient(suite.api).customerPortal.licenseKeys.activate({
      key: licenseKey.key,
      organizationId: seller.organizationId,
      label: 'Work laptop',
    });
    const session = await seller.polar.customerSessions.create({ customerId: order.customerId });
    await eventually(
      () =>
        buyerClient(suite.api).customerPortal.downloadables.list(
          { customerSession: session.token },
          {},
        ),
      (page) => page.result.items.length === 1,
      { what: 'the file granted' },
    );

    const page = await phonePage();
    await page.goto(session.customerPortalUrl);
    await page.getByRole('heading', { name: 'Your purchases' }).waitFor();
    assert.ok(!page.url().includes('customer_session_token'), 'the token left the address bar');

    await page.getByRole('link', { name: 'Downloads', exact: true }).click();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'manual.txt' }).click(),
    ]);
    assert.equal(download.suggestedFilename(), 'manual.txt');
    assert.deepEqual(await readFile(await download.path()), contents);
    await assertFitsWidth(page);

    await page.getByRole('link', { name: 'License keys', exact: true }).click();
    assert.equal(await page.getByTestId('license-key').textContent(), licenseKey.key);
    await page.getByText('(1 of 2)').waitFor();
    await assertFitsWidth(page);
    await page.screenshot({
      path: join(screenshotsDir, 'portal-license-keys.png'),
      fullPage: true,
    });
    await page.getByRole('button', { name: 'Deactivate Work laptop' }).click();
    await page.getByText('Not activated on any device.').waitFor();

    // Billing details, then the order's invoice (opened in a new tab) carries them.
    await page.getByRole('link', { name: 'Billing details', exact: true }).click();
    await page.getByLabel(/^Billing name/).fill('Lovelace Analytics Ltd');
    await page.getByLabel(/^Country/).selectOption('GB');
    await page
      .getByRole('textbox', { name: 'Address (optional)', exact: true })
      .fill('12 St James Square');
    await page.getByLabel(/^Postal code/).fill('SW1Y 4LB');
    await page.getByLabel(/^City/).fill('London');
    await page.getByRole('button', { name: 'Save billing details' }).click();
    await page.getByRole('status').getByText('Saved.').waitFor();
    await assertFitsWidth(page);
    const updated = await seller.polar.customers.get({ id: order.customerId });
    assert.equal(updated.billingAddress?.country, 'GB');
    assert.equal(updated.billingAddress?.city, 'London');

    await page.getByRole('link', { name: 'Orders', exact: true }).click();
    const [invoice] = await Promise.all([
      page.waitForEvent('popup'),
      page.getByRole('button', { name: `Invoice ${order.invoiceNumber}` }).click(),
    ]);
    await invoice.getByText(order.invoiceNumber).first().waitFor();
    await invoice.close();

    // Signing out forgets the session: the organization's sign-in asks for the email.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to your purchases' }).waitFor();
    await page.getByLabel('Email').waitFor();
    await page.reload();
    await page.getByText('Open the sign-in link from your email').waitFor();
    const after = await seller.polar.licenseKeys.get({ id: licenseKey.id });
    assert.deepEqual(after.activations, []);
    await assert.rejects(
      seller.polar.licenseKeys.validate({
        key: licenseKey.key,
        organizationId: seller.organizationId,
        activationId: activation.id,
      }),
      'the deactivated activation no longer validates',
    );
    await page.close();
  });

  it('a declined renewal: the customer opens the mail’s link, pays with a new card, and finance sees it recovered', async () => {
    const { page: financePage, seller } = await sellerPage(
      suite.browser,
      suite.api.url,
      suite.api,
      {
        organizationName: 'Recovery Works',
      },
    );
    const product = await seller.polar.products.create({
      name: 'Team',
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount: 2500 }],
    });
    const subscriptionId = await declinedRenewal(suite.api, seller, product.id, {
      startAt: '2027-04-01T08:00:00Z',
      renewAt: '2027-05-01T08:00:00Z',
    });
    const { customer } = await seller.polar.subscriptions.get({ id: subscriptionId });
    const mail = await waitForMail({
      to: customer.email,
      subject: /payment of .* failed/,
      timeoutMs: 30_000,
    });

    const page = await phonePage();
    await page.goto(mailedLink(mail, '/portal/sign-in?token='));
    // The link opens the portal on the subscription.
    await page.waitForURL(/\/portal\/[^/?]+\?subscription_id=/);
    const card = page.getByRole('article', { name: 'Team' });
    await card.getByText('Your last payment failed', { exact: false }).waitFor();
    await assertFitsWidth(page);
    await page.screenshot({ path: join(screenshotsDir, 'portal-past-due.png'), fullPage: true });

    await card.getByRole('button', { name: 'Update card' }).click();
    const dialog = page.getByRole('dialog', { name: 'Update card' });
    await dialog.getByRole('radio', { name: /4242/ }).check();
    await dialog.getByRole('button', { name: 'Pay $25.00 with this card' }).click();
    await card.getByText(/the payment went through/).waitFor({ timeout: 30_000 });
    await card.getByText('Active', { exact: true }).waitFor();
    const recovered = await seller.polar.subscriptions.get({ id: subscriptionId });
    assert.equal(recovered.status, 'active');
    await page.screenshot({ path: join(screenshotsDir, 'portal-recovered.png'), fullPage: true });
    await page.close();

    // Finance sees the customer recovered it.
    const listed = await callV1(
      suite.api,
      seller.token,
      'GET',
      '/v1/subscriptions/recovered-renewals?recovered_by=customer',
    );
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    assert.deepEqual(
      listed.body.items.map((item: { id: string }) => item.id),
      [subscriptionId],
    );
    await financePage.goto(`${suite.api.url}/`);
    await financePage.getByRole('link', { name: 'Failed renewals', exact: true }).click();
    await financePage.getByText('Recovered by the customer').first().waitFor();
    await financePage.close();
  });

  it('a Discord benefit waits for the customer’s account: "Connect Discord" links it', async () => {
    const seller = await createSeller(suite.api);
    const lounge = await seller.polar.benefits.create({
      type: 'discord',
      description: 'Members lounge',
      properties: {
        guildToken: issueDiscordGuildToken(
          suite.api.config.auth.secret ?? '',
          seller.organizationId,
          '81384788765712384',
        ),
        roleId: '777',
        kickMember: false,
      },
    });
    const product = await productWithBenefits(seller, [lounge.id]);
    const { order } = await buy(suite.api, seller, product.id);
    assert.ok(order, 'the purchase made an order');
    const session = await seller.polar.customerSessions.create({ customerId: order.customerId });
    const portal = buyerClient(suite.api).customerPortal;
    const auth = { customerSession: session.token };
    await eventually(
      () => portal.benefitGrants.list(auth, {}),
      (page) => page.result.items.length === 1,
      { what: 'the Discord grant, waiting for an account' },
    );

    const page = await phonePage();
    await page.goto(session.customerPortalUrl);
    await page.getByRole('link', { name: 'Benefits', exact: true }).click();
    const benefits = page.getByRole('region', { name: 'Benefits' });
    await benefits.getByText('Connect your Discord account to get this.').waitFor();
    await assertFitsWidth(page);
    await page.screenshot({ path: join(screenshotsDir, 'portal-connect.png'), fullPage: true });
    // Discord's consent (the local provider signs its default account in) sends the customer back.
    await benefits.getByRole('button', { name: 'Connect Discord' }).click();
    await page.waitForURL(`${suite.api.url}/portal#benefits`);
    await benefits.getByText('Members lounge').waitFor();
    assert.equal(await benefits.getByRole('button', { name: 'Connect Discord' }).count(), 0);
    const me = await portal.customers.get(auth);
    assert.ok(me.oauthAccounts.discord?.accountId, JSON.stringify(me.oauthAccounts));
    await page.close();
  });
});
