import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Order, Subscription } from '../../db/entities/index.ts';
import { eventually } from '../../devstack/eventually.ts';
import { extractLinks, waitForMail } from '../../integrations/mail/testing.ts';
import { buy, testCards } from '../orders/testing.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';
import { advanceTestClock, declinedRenewal, saveCard, subscribeOnTestClock } from './testing.ts';

/**
 * What finance sees and does about a failed renewal besides dunning's own actions: the
 * update-card link mailed to the customer, the renewals recovered (and by whom), and why
 * dunning ended a subscription.
 */
describe('failed renewal recovery (/v1/subscriptions/…)', { concurrency: true }, () => {
  let api: TestApi;
  let seller: Seller;
  let other: Seller;
  let planId: string;

  before(async () => {
    api = await startCommerceApi();
    [seller, other] = await Promise.all([createSeller(api), createSeller(api)]);
    const plan = await seller.polar.products.create({
      name: 'Studio plan',
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount: 1200 }],
    });
    planId = plan.id;
  });
  after(() => api.close());

  const v1 = (method: string, path: string, token = seller.token) =>
    callV1(api, token, method, path);

  it('mails the customer a link that signs them into the portal on the subscription', async () => {
    const subscriptionId = await declinedRenewal(api, seller, planId, {
      startAt: '2027-02-01T08:00:00Z',
      renewAt: '2027-03-01T08:00:00Z',
    });
    const sent = await v1('POST', `/v1/subscriptions/${subscriptionId}/update-card-link`);
    assert.equal(sent.status, 202, JSON.stringify(sent.body));
    const email = sent.body.sent_to as string;
    const { customerId } = await seller.polar.subscriptions.get({ id: subscriptionId });
    assert.equal(email, (await seller.polar.customers.get({ id: customerId })).email);
    const mail = await waitForMail({ to: email, subject: /^Update your payment method/ });
    const [link] = extractLinks(mail).filter((url) => url.includes('/portal/sign-in'));
    const token = new URL(link ?? 'http://x').searchParams.get('token');
    assert.ok(token, mail.text);
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
    assert.match(opened.body.return_to, new RegExp(`\\?subscription_id=${subscriptionId}$`));
    const own = await seller.polar.customerPortal.orders.list(
      { customerSession: opened.body.token },
      { subscriptionId },
    );
    assert.ok(
      own.result.items.some((order) => order.status === 'pending'),
      'its open renewal',
    );
  });

  it('refuses the link for a renewal not failing, and another organization’s subscription', async () => {
    const { order } = await buy(api, seller, planId);
    const subscriptionId = order?.subscriptionId ?? '';
    const healthy = await v1('POST', `/v1/subscriptions/${subscriptionId}/update-card-link`);
    assert.equal(healthy.status, 409);
    assert.equal(healthy.body.error, 'NotPastDueSubscription');
    const hidden = await v1(
      'POST',
      `/v1/subscriptions/${subscriptionId}/update-card-link`,
      other.token,
    );
    assert.equal(hidden.status, 404);
  });

  it('lists the renewals recovered, with who recovered them', async () => {
    const subscriptionId = await declinedRenewal(api, seller, planId, {
      startAt: '2027-03-05T08:00:00Z',
      renewAt: '2027-04-05T08:00:00Z',
    });
    const [renewal] = await api.orm.em
      .fork()
      .find(Order, { subscription: subscriptionId, billingReason: 'subscription_cycle' });
    const { customerId } = await seller.polar.subscriptions.get({ id: subscriptionId });
    const session = await seller.polar.customerSessions.create({ customerId });
    const paid = await seller.polar.customerPortal.orders.confirmRetryPayment(
      { customerSession: session.token },
      { id: renewal?.id ?? '', customerOrderConfirmPayment: { paymentMethodId: testCards.visa } },
    );
    assert.equal(paid.status, 'succeeded');

    const recovered = await v1('GET', '/v1/subscriptions/recovered-renewals?recovered_by=customer');
    assert.equal(recovered.status, 200, JSON.stringify(recovered.body));
    const item = recovered.body.items.find((found: { id: string }) => found.id === subscriptionId);
    assert.ok(item, 'listed as recovered');
    assert.equal(item.recovered_by, 'customer');
    assert.equal(item.recovered_at, '2027-04-05T08:00:00.000Z');
    assert.equal(item.status, 'active');
    const byFinance = await v1('GET', '/v1/subscriptions/recovered-renewals?recovered_by=finance');
    assert.ok(!byFinance.body.items.some((found: { id: string }) => found.id === subscriptionId));
    const failing = await v1('GET', '/v1/subscriptions/failed-renewals');
    assert.ok(!failing.body.items.some((found: { id: string }) => found.id === subscriptionId));
    const theirs = await v1('GET', '/v1/subscriptions/recovered-renewals', other.token);
    assert.deepEqual(theirs.body.items, []);
    const bad = await v1('GET', '/v1/subscriptions/recovered-renewals?recovered_by=someone');
    assert.equal(bad.status, 422);
  });

  it('answers finance’s retry plainly, and marks the renewal recovered by finance', async () => {
    const subscriptionId = await declinedRenewal(api, seller, planId, {
      startAt: '2027-05-09T08:00:00Z',
      renewAt: '2027-06-09T08:00:00Z',
    });
    await saveCard(api, subscriptionId, testCards.visa);
    const retried = await v1('POST', `/v1/subscriptions/${subscriptionId}/dunning/retry`);
    assert.equal(retried.status, 200, JSON.stringify(retried.body));
    assert.deepEqual(retried.body.retry_result, {
      status: 'succeeded',
      decline_code: null,
      decline_reason: null,
    });
    assert.equal(retried.body.status, 'active');
    assert.equal(retried.body.recovered_by, 'finance');
    assert.equal(retried.body.last_payment_attempt_at, '2027-06-09T08:00:00.000Z');
    // Resolving, or any action but a retry, says nothing of a charge.
    const resolvedId = await declinedRenewal(api, seller, planId, {
      startAt: '2027-05-10T08:00:00Z',
      renewAt: '2027-06-10T08:00:00Z',
    });
    const resolved = await v1('POST', `/v1/subscriptions/${resolvedId}/dunning/resolve`);
    assert.equal(resolved.status, 200, JSON.stringify(resolved.body));
    assert.ok(!('retry_result' in resolved.body));
    assert.equal(resolved.body.recovered_by, 'finance');
  });

  it('says dunning canceled it because the payment failed, and when it was last tried', async () => {
    const { subscriptionId, clockId } = await subscribeOnTestClock(
      api,
      seller,
      planId,
      '2027-07-01T00:00:00.000Z',
    );
    await saveCard(api, subscriptionId, testCards.insufficientFunds);
    await advanceTestClock(api, seller, clockId, '2027-08-01T00:00:00.000Z');
    await eventually(
      () => seller.polar.subscriptions.get({ id: subscriptionId }),
      (found) => found.status === 'past_due',
      { what: 'past due', timeoutMs: 90_000 },
    );
    // Every retry (2, 7, 14 and 21 days after the first failure) falls due in this advance.
    await advanceTestClock(api, seller, clockId, '2027-08-22T00:00:00.000Z');
    const canceled = await eventually(
      () => v1('GET', `/v1/subscriptions/${subscriptionId}`),
      (found) => found.body.status === 'canceled',
      { what: 'canceled by dunning', timeoutMs: 90_000 },
    );
    assert.equal(canceled.body.cancellation_cause, 'payment_failed');
    assert.equal(canceled.body.last_payment_attempt_at, '2027-08-22T00:00:00.000Z');
    assert.equal(canceled.body.last_payment_decline_reason, 'The card has insufficient funds.');
    assert.equal(canceled.body.customer_cancellation_reason, null, 'not the customer’s reason');
    const row = await api.orm.em.fork().findOneOrFail(Subscription, subscriptionId);
    assert.equal(row.recoveredAt, null);
  });
});
