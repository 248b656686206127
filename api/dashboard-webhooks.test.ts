import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Receiver, startReceiver } from '../commerce/webhooks/testing.ts';
import { dashboardBrowserSuite, ownerPage, screenshotsDir } from './browser-testing.ts';

/** A webhook endpoint's page in headless Chromium: test events, deliveries, redelivery, edits. */
describe('dashboard webhooks (browser)', () => {
  const suite = dashboardBrowserSuite();
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver();
  });
  after(() => receiver.close());

  it("sends a test event, shows its delivery's payload and answer, and redelivers it", async () => {
    const { page, post, organizationId } = await ownerPage(suite.browser, suite.api.url);
    const endpoint = await post('/v1/webhooks/endpoints', {
      url: receiver.url,
      format: 'raw',
      events: ['order.paid'],
    });
    await page.goto(`${suite.api.url}/organization/webhooks/${endpoint.id}`);
    await page.getByRole('button', { name: 'Send test event' }).click();
    const status = page.getByRole('status');
    await status.getByText('Test event delivered: succeeded (HTTP 200).').waitFor();
    const deliveries = page.getByRole('table', { name: 'Deliveries' });
    await deliveries.getByRole('cell', { name: 'organization.updated' }).waitFor();

    await status.getByRole('button', { name: 'Payload and response' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delivery of organization.updated' });
    const payload = dialog.getByRole('figure', { name: 'Payload' });
    await payload.getByText('"type": "organization.updated"').waitFor();
    await payload.getByText(`"id": "${organizationId}"`).waitFor();
    await dialog.getByRole('figure', { name: 'Response' }).getByText('ok').waitFor();
    await page.screenshot({
      path: join(screenshotsDir, 'dashboard-webhook-delivery.png'),
      fullPage: true,
    });

    // Redelivery sends the same event (same id) again, and its attempt joins the table.
    await dialog.getByRole('button', { name: 'Redeliver' }).click();
    await status.getByText('Redelivery delivered: succeeded (HTTP 200).').waitFor();
    await deliveries.getByRole('cell', { name: 'organization.updated' }).nth(1).waitFor();
    const sent = receiver.received.filter((request) =>
      request.body.includes('organization.updated'),
    );
    assert.equal(sent.length, 2);
    assert.equal(sent[0]?.headers['webhook-id'], sent[1]?.headers['webhook-id']);
    await page.close();
  });

  it('edits the URL and events, refusing an empty URL in words, and disables and enables', async () => {
    const { page, post } = await ownerPage(suite.browser, suite.api.url);
    const endpoint = await post('/v1/webhooks/endpoints', {
      url: receiver.url,
      format: 'raw',
      events: ['order.paid'],
    });
    await page.goto(`${suite.api.url}/organization/webhooks/${endpoint.id}`);
    await page.getByRole('button', { name: 'Edit' }).click();
    const url = page.getByLabel('URL');
    await url.fill('');
    await page.getByRole('button', { name: 'Save endpoint' }).click();
    await page.getByText('URL is required').waitFor();
    await url.fill(`${receiver.url}/v2`);
    await page.getByLabel('customer.created').check();
    await page.getByRole('button', { name: 'Save endpoint' }).click();
    await page.getByRole('heading', { level: 1, name: `${receiver.url}/v2` }).waitFor();
    await page.getByText('order.paid, customer.created').waitFor();

    // Disabled, a test event waits in the queue; enabled again, it goes.
    await page.getByRole('button', { name: 'Disable', exact: true }).click();
    await page.getByText('disabled', { exact: true }).waitFor();
    const before = receiver.received.length;
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page
      .getByRole('status')
      .getByText('Test event queued: it is sent once the endpoint is enabled.')
      .waitFor();
    assert.equal(receiver.received.length, before);
    await page.getByRole('button', { name: 'Enable again' }).click();
    await page
      .getByRole('status')
      .getByText('Test event delivered: succeeded (HTTP 200).')
      .waitFor();
    assert.equal(receiver.received.length, before + 1);
    await page.close();
  });
});
