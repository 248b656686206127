import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dunningFailed, dunningRecovered, dunningStarted } from './seller-templates.ts';

const facts = {
  organizationName: 'Acme <Tools>',
  customerEmail: 'buyer+"x"@example.com',
  productName: 'Team plan',
  amount: '$29.00',
  dashboardUrl: 'https://tollgate.example/failed-renewals',
};

describe('seller dunning mails', () => {
  it('say what happened and what comes next, each linking to the failed renewals', () => {
    const started = dunningStarted({
      ...facts,
      declineReason: 'The card has insufficient funds.',
      nextRetryAt: new Date('2027-06-03T09:00:00Z'),
    });
    assert.match(started.text, /declined: The card has insufficient funds\./);
    assert.match(started.text, /tried again on June 3, 2027/);
    const lastTry = dunningStarted({ ...facts, declineReason: null, nextRetryAt: null });
    assert.match(lastTry.text, /was declined\.\n/);
    assert.match(lastTry.text, /No further retry is scheduled/);
    assert.match(
      dunningRecovered({ ...facts, recoveredBy: 'customer' }).text,
      /paid it from the customer portal/,
    );
    const unpaid = dunningFailed({ ...facts, status: 'unpaid', lastAttemptAt: null });
    assert.match(unpaid.subject, /subscription is unpaid$/);
    assert.match(unpaid.text, /no longer renews until your team settles it/);
    for (const mail of [started, unpaid]) {
      assert.ok(mail.text.includes(facts.dashboardUrl));
      assert.ok(mail.html.includes(`href="${facts.dashboardUrl}"`));
    }
  });

  it('escapes the names and addresses in their HTML', () => {
    const { html } = dunningFailed({
      ...facts,
      status: 'canceled',
      lastAttemptAt: new Date('2027-06-22T09:00:00Z'),
    });
    assert.ok(!html.includes('<Tools>') && !html.includes('"x"'), html);
    assert.match(html, /last attempt on June 22, 2027/);
  });
});
