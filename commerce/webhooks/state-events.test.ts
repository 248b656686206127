import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { BenefitGrantWebhook } from '@polar-sh/sdk/models/components/benefitgrantwebhook.js';
import type { CustomerState } from '@polar-sh/sdk/models/components/customerstate.js';
import { validateEvent } from '@polar-sh/sdk/webhooks';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { createBenefitGrantActivities } from '../../activities/benefit-grants.ts';
import { OutboxEvent } from '../../db/entities/index.ts';
import { eventually } from '../../devstack/eventually.ts';
import { paidOrder, productWithBenefits, uploadDownloadable } from '../benefit-grants/testing.ts';
import { testCards } from '../orders/testing.ts';
import { advanceTestClock, saveCard, subscribeOnTestClock } from '../subscriptions/testing.ts';
import { createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';
import { type Receiver, startReceiver } from './testing.ts';

// The in-process worker logs every workflow task at INFO; only problems are worth a line.
Runtime.install({ logger: new DefaultLogger('WARN') });

// The subscription starts on its own test clock at this instant: its first period is January.
const newYear = '2027-01-01T00:00:00.000Z';
const day = (n: number) => new Date(Date.parse(newYear) + n * 86_400_000).toISOString();

/**
 * What the customer state and grant events Polar's SDK reads say: one customer.state_changed per
 * change of what a customer has, with the state after it, and benefit_grant.updated with the
 * grant's properties before the update.
 */
describe('customer.state_changed and benefit_grant.updated deliveries, read by Polar’s SDK', () => {
  let api: TestApi;
  let seller: Seller;
  let receiver: Receiver;
  let secret: string;

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
    receiver = await startReceiver();
    const endpoint = await seller.polar.webhooks.createWebhookEndpoint({
      url: receiver.url,
      format: 'raw',
      events: ['customer.state_changed', 'benefit_grant.updated'],
    });
    secret = endpoint.secret;
  });
  after(async () => {
    await receiver.close();
    await api.close();
  });

  /** Every delivery so far, checked and parsed by the SDK's validateEvent. */
  const delivered = () =>
    receiver.received.map((delivery) =>
      validateEvent(delivery.body, delivery.headers as Record<string, string>, secret),
    );

  /** The customer states delivered for `customerId`, oldest first. */
  const statesOf = (customerId: string): CustomerState[] =>
    delivered().flatMap((event) =>
      event.type === 'customer.state_changed' && event.data.id === customerId ? [event.data] : [],
    );

  /** The customer.state_changed events the outbox holds for `customerId`. */
  const recordedStates = (customerId: string) =>
    api.orm.em.fork().count(OutboxEvent, {
      organization: seller.organizationId,
      type: 'customer.state_changed',
      data: { id: customerId },
    });

  /**
   * Runs `change` and answers the one state it sends: the outbox holds exactly one more
   * customer.state_changed of the customer once `settled` says the change is done, and the
   * endpoint receives it.
   */
  const oneStateAfter = async (
    customerId: string,
    change: () => Promise<unknown>,
    settled: () => Promise<boolean> = async () => true,
  ): Promise<CustomerState> => {
    const recordedBefore = await recordedStates(customerId);
    const deliveredBefore = statesOf(customerId).length;
    await change();
    await eventually(settled, (done) => done, { what: 'the change done' });
    assert.equal(await recordedStates(customerId), recordedBefore + 1);
    const states = await eventually(
      async () => statesOf(customerId),
      (found) => found.length === deliveredBefore + 1,
      { what: 'the customer state delivered' },
    );
    return states.at(-1) as CustomerState;
  };

  it('sends the state after a cancel at period end, an uncancel, a plan change and a renewal', async () => {
    const [basic, pro] = await Promise.all(
      [3100, 6200].map((priceAmount) =>
        seller.polar.products.create({
          name: `Plan ${priceAmount}`,
          recurringInterval: 'month',
          prices: [{ amountType: 'fixed', priceAmount }],
        }),
      ),
    );
    assert.ok(basic && pro);
    const { subscriptionId, clockId } = await subscribeOnTestClock(api, seller, basic.id, newYear);
    const { customerId } = await seller.polar.subscriptions.get({ id: subscriptionId });
    // The checkout that started the subscription sends the state holding it.
    await eventually(
      async () => statesOf(customerId),
      (found) => found.some((state) => state.activeSubscriptions[0]?.id === subscriptionId),
      { what: 'the state with the new subscription delivered' },
    );
    await advanceTestClock(api, seller, clockId, day(5));
    const update = (
      subscriptionUpdate: Parameters<
        typeof seller.polar.subscriptions.update
      >[0]['subscriptionUpdate'],
    ) => seller.polar.subscriptions.update({ id: subscriptionId, subscriptionUpdate });
    const onlySubscription = (state: CustomerState) => {
      assert.equal(state.activeSubscriptions.length, 1);
      const [subscription] = state.activeSubscriptions;
      assert.equal(subscription?.id, subscriptionId);
      return subscription;
    };

    const canceled = await oneStateAfter(customerId, () => update({ cancelAtPeriodEnd: true }));
    assert.equal(onlySubscription(canceled).cancelAtPeriodEnd, true);
    assert.equal(onlySubscription(canceled).canceledAt?.toISOString(), day(5));
    assert.equal(onlySubscription(canceled).endsAt?.toISOString(), day(31));

    const uncanceled = await oneStateAfter(customerId, () => update({ cancelAtPeriodEnd: false }));
    assert.equal(onlySubscription(uncanceled).cancelAtPeriodEnd, false);
    assert.equal(onlySubscription(uncanceled).canceledAt, null);
    assert.equal(onlySubscription(uncanceled).endsAt, null);

    const changed = await oneStateAfter(customerId, () =>
      update({ productId: pro.id, prorationBehavior: 'prorate' }),
    );
    assert.equal(onlySubscription(changed).productId, pro.id);
    assert.equal(onlySubscription(changed).amount, 6200);

    const renewed = await oneStateAfter(
      customerId,
      () => advanceTestClock(api, seller, clockId, day(32)),
      async () =>
        (
          await seller.polar.subscriptions.get({ id: subscriptionId })
        ).currentPeriodStart.getTime() === Date.parse(day(31)),
    );
    assert.equal(onlySubscription(renewed).currentPeriodStart.toISOString(), day(31));
    assert.equal(
      onlySubscription(renewed).currentPeriodEnd?.toISOString(),
      '2027-03-01T00:00:00.000Z',
    );
    assert.equal(onlySubscription(renewed).status, 'active');
  });

  it('sends the state without a subscription whose renewal was declined (past due)', async () => {
    const plan = await seller.polar.products.create({
      name: 'Declined plan',
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount: 1500 }],
    });
    const { subscriptionId, clockId } = await subscribeOnTestClock(api, seller, plan.id, newYear);
    const { customerId } = await seller.polar.subscriptions.get({ id: subscriptionId });
    // Read once: the API keeps the state until a change of it is announced.
    const active = await seller.polar.customers.getState({ id: customerId });
    assert.deepEqual(
      active.activeSubscriptions.map((subscription) => subscription.id),
      [subscriptionId],
    );
    await saveCard(api, subscriptionId, testCards.insufficientFunds);
    const pastDue = await oneStateAfter(
      customerId,
      () => advanceTestClock(api, seller, clockId, day(32)),
      async () =>
        (await seller.polar.subscriptions.get({ id: subscriptionId })).status === 'past_due',
    );
    assert.deepEqual(pastDue.activeSubscriptions, []);
    const read = await seller.polar.customers.getState({ id: customerId });
    assert.deepEqual(read.activeSubscriptions, []);
  });

  it('sends one state per grant, with the benefit and its meter credit together', async () => {
    const meter = await seller.polar.meters.create({
      name: `Calls ${randomBytes(4).toString('hex')}`,
      filter: { conjunction: 'and', clauses: [] },
      aggregation: { func: 'count' },
    });
    const credit = await seller.polar.benefits.create({
      type: 'meter_credit',
      description: '100 calls',
      properties: { meterId: meter.id, units: 100, rollover: false },
    });
    const product = await productWithBenefits(seller, [credit.id]);
    const customer = await seller.polar.customers.create({
      email: `state-${randomBytes(5).toString('hex')}@example.com`,
    });
    const grants = createBenefitGrantActivities(
      { orm: api.orm, temporal: api.temporal },
      api.config.benefitIntegrations,
    );
    const order = await paidOrder(api, seller, customer.id, product.id);
    const granted = await oneStateAfter(
      customer.id,
      () =>
        grants.requestBenefitGrants({
          organizationId: seller.organizationId,
          customerId: customer.id,
          productId: product.id,
          orderId: order.id,
        }),
      async () =>
        (await seller.polar.customers.getState({ id: customer.id })).grantedBenefits.length === 1,
    );
    // The credit (balance from zero to 100) and the grant are one change: one state with both.
    assert.deepEqual(
      granted.grantedBenefits.map((grant) => grant.benefitId),
      [credit.id],
    );
    assert.deepEqual(
      granted.activeMeters.map((row) => [row.meterId, row.creditedUnits, row.balance]),
      [[meter.id, 100, 100]],
    );
  });

  it('sends benefit_grant.updated with the properties the grant had before', async () => {
    const first = await uploadDownloadable(api, seller, 'v1.txt', Buffer.from('version 1'));
    const second = await uploadDownloadable(api, seller, 'v2.txt', Buffer.from('version 2'));
    const files = await seller.polar.benefits.create({
      type: 'downloadables',
      description: 'Releases',
      properties: { files: [first.id] },
    });
    const product = await productWithBenefits(seller, [files.id]);
    const customer = await seller.polar.customers.create({
      email: `files-${randomBytes(5).toString('hex')}@example.com`,
    });
    const grants = createBenefitGrantActivities(
      { orm: api.orm, temporal: api.temporal },
      api.config.benefitIntegrations,
    );
    await grants.requestBenefitGrants({
      organizationId: seller.organizationId,
      customerId: customer.id,
      productId: product.id,
      orderId: (await paidOrder(api, seller, customer.id, product.id)).id,
    });
    await eventually(
      () => seller.polar.customers.getState({ id: customer.id }),
      (state) => state.grantedBenefits.length === 1,
      { what: 'the files granted' },
    );

    await seller.polar.benefits.update({
      id: files.id,
      requestBody: { type: 'downloadables', properties: { files: [second.id] } },
    });
    const updated = await eventually(
      async () =>
        delivered().flatMap((event) =>
          event.type === 'benefit_grant.updated' && event.data.customerId === customer.id
            ? [event.data]
            : [],
        ),
      (found) => found.length === 1,
      { what: 'benefit_grant.updated delivered' },
    );
    const grant = updated[0] as BenefitGrantWebhook;
    assert.equal(grant.benefitId, files.id);
    assert.deepEqual(grant.properties, { files: [second.id] });
    assert.deepEqual(grant.previousProperties, { files: [first.id] });
  });
});
