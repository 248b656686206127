import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  cardExpiring,
  orderReceipt,
  paymentRecovered,
  portalSignIn,
  renewalUpcoming,
  subscriptionCanceled,
  subscriptionStarted,
  trialEnding,
} from './customer-templates.ts';
import { escapeHtml } from './templates.ts';
import type { MailContent } from './transport.ts';

const url = 'https://tollgate.example/portal/sign-in?token=tollgate_csl_abc&x=1';
const day = new Date('2027-03-08T10:00:00Z');

/** Every customer mail, built from `organizationName` and `productName`. */
function allMails(organizationName: string, productName: string): Record<string, MailContent> {
  const facts = { organizationName, portalUrl: url, productName };
  const subscription = { ...facts, amount: '$29.00', interval: 'month' as const };
  return {
    portalSignIn: portalSignIn({ organizationName, url, expiresInMinutes: 15 }),
    orderReceipt: orderReceipt({
      ...facts,
      amount: '$19.00',
      paidAt: day,
      invoiceNumber: 'AC-0001',
    }),
    subscriptionStarted: subscriptionStarted({
      ...subscription,
      trialEndsAt: null,
      nextChargeAt: day,
    }),
    trialStarted: subscriptionStarted({ ...subscription, trialEndsAt: day, nextChargeAt: null }),
    trialEnding: trialEnding({ ...subscription, trialEndsAt: day }),
    renewalUpcoming: renewalUpcoming({ ...subscription, interval: 'year', renewsAt: day }),
    paymentRecovered: paymentRecovered(facts),
    willCancel: subscriptionCanceled({ ...facts, endsAt: day, ended: false }),
    canceled: subscriptionCanceled({ ...facts, endsAt: day, ended: true }),
    cardExpiring: cardExpiring({
      ...facts,
      card: 'Visa card ending in 4242',
      validThrough: '02/2027',
      renewsAt: day,
    }),
  };
}

describe('customer mail templates', () => {
  for (const [name, mail] of Object.entries(allMails('Acme', 'Pro plan'))) {
    it(`${name}: a subject naming the seller or product, the portal link in text and HTML`, () => {
      assert.match(mail.subject, /Acme|Pro plan/);
      assert.ok(mail.text.includes(`\n${url}\n`), 'the link on a line of its own in the text');
      assert.ok(mail.html.includes(`<a href="${escapeHtml(url)}">`), 'the link as an anchor');
      assert.doesNotMatch(mail.html, /&(?!amp;|lt;|gt;|quot;|#39;)/, 'every & is escaped');
    });
  }

  it('says what matters in each', () => {
    const mails = allMails('Acme', 'Pro plan');
    assert.match(mails.portalSignIn?.text ?? '', /works once and expires in 15 minutes/);
    assert.match(
      mails.orderReceipt?.text ?? '',
      /Amount paid: \$19\.00 on March 8, 2027 \(invoice AC-0001\)/,
    );
    assert.match(
      mails.subscriptionStarted?.text ?? '',
      /\$29\.00 every month .* next charge is on March 8, 2027/,
    );
    assert.match(
      mails.trialStarted?.text ?? '',
      /free trial runs until March 8, 2027; then you will be charged \$29\.00/,
    );
    assert.match(mails.trialEnding?.subject ?? '', /trial ends on March 8, 2027/);
    assert.match(mails.renewalUpcoming?.text ?? '', /\$29\.00 for the next year/);
    assert.match(mails.willCancel?.subject ?? '', /will end on March 8, 2027/);
    assert.match(mails.canceled?.subject ?? '', /has ended$/);
    assert.match(
      mails.cardExpiring?.text ?? '',
      /valid through 02\/2027\) expires before .* March 8, 2027/,
    );
  });

  it('escapes the seller’s and product’s names in HTML, and keeps them as they are in text', () => {
    const organization = '<script>alert(1)</script> & Co';
    const product = '"><img src=x onerror=alert(1)>';
    for (const [name, mail] of Object.entries(allMails(organization, product))) {
      assert.doesNotMatch(mail.html, /<script|<img/, name);
      const shown = mail.text.includes(organization) || mail.text.includes(product);
      assert.ok(shown, `${name} names the seller or the product in its text`);
      assert.ok(
        mail.html.includes(escapeHtml(organization)) || mail.html.includes(escapeHtml(product)),
        name,
      );
    }
  });
});
