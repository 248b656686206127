import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Subscription } from '../../db/entities/index.ts';
import { eventually } from '../../devstack/eventually.ts';
import { stripeSimulatorControl } from '../../devstack/stripe-simulator.ts';
import type { CapturedMail } from '../../integrations/mail/captured-mail.ts';
import { capturedMailsTo, extractLinks, waitForMail } from '../../integrations/mail/testing.ts';
import type { EmailMessage } from '../../integrations/mail/transport.ts';
import { createStripeClient } from '../../integrations/stripe/client.ts';
import { sendCustomerEmail } from '../../processes/starters.ts';
import { buy, buyerDetails, testCards } from '../orders/testing.ts';
import {
  advanceTestClock,
  declinedRenewal,
  saveCard,
  subscribeOnTestClock,
} from '../subscriptions/testing.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';
import { mailCustomerAboutEvent, sendCustomerReminders } from './service.ts';

/** Long enough for a second copy of a mail, if one were on its way, to arrive. */
const settleMs = 1500;

describe('customer mails: each sent once for what triggers it', () => {
  let api: TestApi;
  let seller: Seller;

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
  });
  after(() => api.close());

  /** The portal page a mail's one-time link opens, by opening it. */
  async function portalPageOf(mail: CapturedMail): Promise<string> {
    const link = extractLinks(mail).find((found) => found.includes('/portal/sign-in?token='));
    assert.ok(link, mail.text);
    const token = new URL(link).searchParams.get('token');
    const opened = await callV1(
      api,
      null,
      'POST',
      '/v1/customer-portal/customer-session/authenticate',
      {
        token,
      },
    );
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    return opened.body.return_to;
  }

  /** Waits for the one mail to `to` with `subject`, then checks no second copy follows. */
  async function onlyMail(to: string, subject: RegExp): Promise<CapturedMail> {
    const mail = await waitForMail({ to, subject, timeoutMs: 20_000 });
    await sleep(settleMs);
    assert.equal((await capturedMailsTo(to, subject)).length, 1, `one mail ${subject} to ${to}`);
    return mail;
  }

  /** The outbox event of `type` about the resource `id`. */
  async function eventAbout(type: string, id: string) {
    const [event] = await api.orm.em
      .fork()
      .execute<{ id: string; type: string; data: Record<string, unknown> }[]>(
        `select id, type, data from outbox_events where type = ? and data ->> 'id' = ?`,
        [type, id],
      );
    assert.ok(event, `${type} of ${id}`);
    return event;
  }

  it('a paid order: one receipt linking to the order, however often its event is read', async () => {
    const product = await seller.polar.products.create({
      name: 'Field guide',
      prices: [{ amountType: 'fixed', priceAmount: 1900 }],
    });
    const details = buyerDetails();
    const { order } = await buy(api, seller, product.id, details);
    assert.ok(order);
    const email = details.customerEmail as string;
    const receipt = await onlyMail(email, /^Your receipt from Seller /);
    assert.match(receipt.text, /Thank you for your purchase of Field guide\./);
    assert.match(receipt.text, /Amount paid: \$19\.00 on /);
    assert.ok(receipt.text.includes(order.invoiceNumber), receipt.text);
    assert.equal(await portalPageOf(receipt), `/portal/orders/${order.id}`);

    // The relay reads the event again: as another relay would, and with its mark gone.
    const event = await eventAbout('order.paid', order.id);
    const delivered: EmailMessage[] = [];
    const again = {
      publicUrl: api.config.api.publicUrl,
      deliver: async (m: EmailMessage) => {
        delivered.push(m);
      },
    };
    assert.equal(await mailCustomerAboutEvent(api.orm.em, event, again), false);
    await api.orm.em
      .fork()
      .execute('delete from customer_mail_events where event_id = ?', [event.id]);
    assert.equal(await mailCustomerAboutEvent(api.orm.em, event, again), false);
    assert.deepEqual(delivered, []);
    await sleep(settleMs);
    assert.equal((await capturedMailsTo(email)).length, 1);
  });

  it('a relay stopped between handing a mail over and claiming it hands it over again; the customer gets it once', async () => {
    const product = await seller.polar.products.create({
      name: 'Atlas',
      prices: [{ amountType: 'fixed', priceAmount: 2500 }],
    });
    const details = buyerDetails();
    const { order } = await buy(api, seller, product.id, details);
    assert.ok(order);
    const email = details.customerEmail as string;
    await onlyMail(email, /^Your receipt from Seller /);
    // As if no relay had read the event yet.
    const event = await eventAbout('order.paid', order.id);
    const db = api.orm.em.fork();
    const marks = async () => {
      const [row] = await db.execute<{ read: number; claimed: number }[]>(
        `select (select count(*) from customer_mail_events where event_id = ?)::int as read,
           (select count(*) from customer_mails where customer_id = ?)::int as claimed`,
        [event.id, order.customerId],
      );
      return row;
    };
    await db.execute('delete from customer_mail_events where event_id = ?', [event.id]);
    await db.execute('delete from customer_mails where customer_id = ?', [order.customerId]);

    const handedOver: string[] = [];
    const publicUrl = api.config.api.publicUrl;
    const stoppedAfterHandingOver = async (message: EmailMessage) => {
      handedOver.push(message.id);
      await sendCustomerEmail(api.temporal, message);
      throw new Error('the relay stopped here');
    };
    await assert.rejects(
      mailCustomerAboutEvent(api.orm.em, event, { publicUrl, deliver: stoppedAfterHandingOver }),
      /the relay stopped here/,
    );
    assert.deepEqual(await marks(), { read: 0, claimed: 0 });

    const deliver = async (message: EmailMessage) => {
      handedOver.push(message.id);
      await sendCustomerEmail(api.temporal, message);
    };
    assert.equal(await mailCustomerAboutEvent(api.orm.em, event, { publicUrl, deliver }), true);
    assert.deepEqual(await marks(), { read: 1, claimed: 1 });
    assert.equal(handedOver.length, 2);
    assert.equal(handedOver[1], handedOver[0]);
    await sleep(settleMs);
    assert.equal((await capturedMailsTo(email, /^Your receipt from Seller /)).length, 1);
  });

  it('a mail started twice through its workflow is sent once', async () => {
    const message: EmailMessage = {
      id: `customer:test-${Date.now()}`,
      to: `twice-${Date.now()}@example.com`,
      subject: 'Once only',
      text: 'Once.',
      html: '<p>Once.</p>',
    };
    await sendCustomerEmail(api.temporal, message);
    await waitForMail({ to: message.to, subject: /^Once only$/ });
    await sendCustomerEmail(api.temporal, message);
    await sleep(settleMs);
    assert.equal((await capturedMailsTo(message.to)).length, 1);
  });

  it('a subscription: started, receipt, then “will end”; canceled again after uncanceling, told again', async () => {
    const plan = await seller.polar.products.create({
      name: 'Team plan',
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount: 2900 }],
    });
    const details = buyerDetails();
    const { checkout } = await buy(api, seller, plan.id, details);
    const email = details.customerEmail as string;
    const subscriptionId = checkout.subscriptionId as string;
    const started = await onlyMail(
      email,
      /^Your Team plan subscription with Seller .* has started$/,
    );
    assert.match(
      started.text,
      /charged \$29\.00 every month until you cancel; the next charge is on /,
    );
    assert.equal(await portalPageOf(started), `/portal/subscriptions/${subscriptionId}`);
    await onlyMail(email, /^Your receipt from /);

    const cancel = (cancelAtPeriodEnd: boolean) =>
      seller.polar.subscriptions.update({
        id: subscriptionId,
        subscriptionUpdate: { cancelAtPeriodEnd },
      });
    await cancel(true);
    const willEnd = await onlyMail(email, /^Your Team plan subscription will end on /);
    assert.match(willEnd.text, /you will not be charged again/);
    await cancel(false);
    await cancel(true);
    await eventually(
      () => capturedMailsTo(email, /will end on/),
      (mails) => mails.length === 2,
      { what: 'a second “will end” mail', timeoutMs: 20_000 },
    );
  });

  it('sends none of the kinds the organization turned off', async () => {
    const quiet = await createSeller(api);
    const updated = await callV1(
      api,
      quiet.token,
      'PATCH',
      `/v1/organizations/${quiet.organizationId}`,
      {
        customer_email_settings: { order_confirmation: false },
      },
    );
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    assert.equal(updated.body.customer_email_settings.order_confirmation, false);
    assert.equal(updated.body.customer_email_settings.subscription_confirmation, true);
    const bad = await callV1(
      api,
      quiet.token,
      'PATCH',
      `/v1/organizations/${quiet.organizationId}`,
      {
        customer_email_settings: { order_confirmation: 'no' },
      },
    );
    assert.equal(bad.status, 422);

    const product = await quiet.polar.products.create({
      name: 'Sticker',
      prices: [{ amountType: 'fixed', priceAmount: 300 }],
    });
    const details = buyerDetails();
    const { order } = await buy(api, quiet, product.id, details);
    assert.ok(order);
    const event = await eventAbout('order.paid', order.id);
    // Read by the relay, and no mail came of it.
    await eventually(
      () =>
        api.orm.em
          .fork()
          .execute('select 1 from customer_mail_events where event_id = ?', [event.id]),
      (rows) => rows.length === 1,
      { what: 'the order.paid event read' },
    );
    await sleep(settleMs);
    assert.deepEqual(await capturedMailsTo(details.customerEmail as string), []);
  });

  it('a failed renewal paid after all: “active again”, once', async () => {
    const plan = await seller.polar.products.create({
      name: 'Studio plan',
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount: 1500 }],
    });
    const subscriptionId = await declinedRenewal(api, seller, plan.id, {
      startAt: '2027-05-01T08:00:00Z',
      renewAt: '2027-06-01T09:00:00Z',
    });
    const { customer } = await seller.polar.subscriptions.get({ id: subscriptionId });
    await saveCard(api, subscriptionId, testCards.visa);
    const retried = await callV1(
      api,
      seller.token,
      'POST',
      `/v1/subscriptions/${subscriptionId}/dunning/retry`,
    );
    assert.equal(retried.status, 200, JSON.stringify(retried.body));
    const recovered = await onlyMail(
      customer.email,
      /^Your Studio plan subscription is active again$/,
    );
    assert.equal(await portalPageOf(recovered), `/portal/subscriptions/${subscriptionId}`);
  });

  it('reminders by each subscription’s clock: a trial ending, a yearly renewal, a card expiring; each once', async () => {
    const trialPlan = await seller.polar.products.create({
      name: 'Trial plan',
      recurringInterval: 'month',
      trialInterval: 'day',
      trialIntervalCount: 7,
      prices: [{ amountType: 'fixed', priceAmount: 900 }],
    });
    const yearlyPlan = await seller.polar.products.create({
      name: 'Yearly plan',
      recurringInterval: 'year',
      prices: [{ amountType: 'fixed', priceAmount: 24_000 }],
    });
    const trial = await subscribeOnTestClock(api, seller, trialPlan.id, '2027-03-01T10:00:00Z');
    const yearly = await subscribeOnTestClock(api, seller, yearlyPlan.id, '2027-02-01T10:00:00Z');
    // Two days before the trial's end; six before the yearly renewal.
    await advanceTestClock(api, seller, trial.clockId, '2027-03-06T10:00:00Z');
    await advanceTestClock(api, seller, yearly.clockId, '2028-01-26T10:00:00Z');

    // Both customers' cards run until the end of 2027: before the yearly renewal, after the trial.
    const simulator = stripeSimulatorControl(api.config.stripe.simulatorUrl ?? '');
    for (const { subscriptionId } of [trial, yearly]) {
      const subscription = await api.orm.em
        .fork()
        .findOneOrFail(Subscription, subscriptionId, { populate: ['customer'] });
      await simulator.setCardExpiry(
        subscription.customer.stripeCustomerId as string,
        subscription.stripePaymentMethodId as string,
        { expMonth: 12, expYear: 2027 },
      );
    }
    // The worker's own Stripe client, each card read it asks Stripe for noted.
    const stripe = createStripeClient(api.config.stripe);
    const looked: string[] = [];
    stripe.on('request', ({ method, path }: { method: string; path: string }) => {
      if (path.includes('/payment_methods/')) looked.push(`${method} ${path}`);
    });
    const remind = () =>
      sendCustomerReminders(api.orm.em.fork(), {
        publicUrl: api.config.api.publicUrl,
        deliver: (message) => sendCustomerEmail(api.temporal, message),
        stripe,
      });
    assert.ok((await remind()) >= 3);
    assert.ok(looked.length >= 2);

    const trialEnding = await onlyMail(
      trial.email,
      /^Your Trial plan trial ends on March 8, 2027$/,
    );
    assert.match(trialEnding.text, /charged \$9\.00, and every month after that/);
    assert.equal(await portalPageOf(trialEnding), `/portal/subscriptions/${trial.subscriptionId}`);
    const renewal = await onlyMail(
      yearly.email,
      /^Your Yearly plan subscription renews on February 1, 2028$/,
    );
    assert.match(renewal.text, /charged \$240\.00 for the next year/);
    const card = await onlyMail(yearly.email, /^Update your card before your Yearly plan renewal$/);
    assert.match(card.text, /Visa card ending in 4242 \(valid through 12\/2027\) expires before/);
    assert.equal(await portalPageOf(card), `/portal/subscriptions/${yearly.subscriptionId}`);
    assert.deepEqual(await capturedMailsTo(trial.email, /^Update your card/), []);

    // Found again by the next pass: nothing sent twice, no card looked up twice.
    looked.length = 0;
    assert.equal(await remind(), 0);
    assert.deepEqual(looked, []);
    await sleep(settleMs);
    assert.equal((await capturedMailsTo(trial.email, /trial ends/)).length, 1);
    assert.equal((await capturedMailsTo(yearly.email, /renews on|Update your card/)).length, 2);
  });
});
