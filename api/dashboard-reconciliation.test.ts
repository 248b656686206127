import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { User } from '../db/entities/index.ts';
import { eventually } from '../devstack/eventually.ts';
import { createStripeClient } from '../integrations/stripe/client.ts';
import { upkeepScheduleIds } from '../processes/upkeep.ts';
import { dashboardBrowserSuite, ownerPage, screenshotsDir } from './browser-testing.ts';

/**
 * A platform admin sees what the nightly reconciliation found, and the upkeep schedules, on the
 * dashboard's Finance → Reconciliation page (headless Chromium); a seller who is not an admin
 * is told no.
 */
describe('dashboard: reconciliation and upkeep (browser)', () => {
  const suite = dashboardBrowserSuite();

  it('lists a payment Stripe took without an order, and runs a schedule on demand', async () => {
    const { page, userId } = await ownerPage(suite.browser, suite.api.url);
    await suite.api.orm.em.fork().nativeUpdate(User, { id: userId }, { role: 'admin' });
    const stripe = createStripeClient(suite.api.config.stripe);
    const stray = await stripe.paymentIntents.create({
      amount: 1717,
      currency: 'usd',
      payment_method: 'pm_card_visa',
      confirm: true,
    });

    await page.goto(`${suite.api.url}/reconciliation`);
    const schedules = page.getByRole('region', { name: 'Scheduled upkeep' });
    const reconcile = schedules.getByRole('row').filter({ hasText: 'Reconcile Stripe payments' });
    await reconcile.getByText('every 24 hours').waitFor();
    const schedule = suite.api.temporal.schedule.getHandle(upkeepScheduleIds.reconcilePayments);
    const taken = (await schedule.describe()).info.numActionsTaken;
    await reconcile.getByRole('button', { name: 'Run now' }).click();
    const ran = await eventually(
      () => schedule.describe(),
      (description) => description.info.numActionsTaken > taken,
    );
    const started = ran.info.recentActions.at(-1)?.action.workflow;
    assert.ok(started);
    await suite.api.temporal.workflow
      .getHandle(started.workflowId, started.firstExecutionRunId)
      .result();

    await page.reload();
    const row = page.getByRole('row').filter({ hasText: stray.id });
    await row.getByText('Paid at Stripe, no paid order').waitFor();
    await row.getByText('$17.17').waitFor();
    await page.screenshot({
      path: join(screenshotsDir, 'dashboard-reconciliation.png'),
      fullPage: true,
    });
  });

  it('tells a seller who is not a platform admin that the page is not theirs', async () => {
    const { page } = await ownerPage(suite.browser, suite.api.url);
    await page.goto(`${suite.api.url}/reconciliation`);
    await page.getByText('Could not load the mismatches').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Run now' }).count(), 0);
  });
});
