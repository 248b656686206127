import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Product } from '@polar-sh/sdk/models/components/product.js';
import { answerProblem } from '../../commerce/http/openapi.ts';
import { buyerClient, buyerDetails } from '../../commerce/orders/testing.ts';
import {
  callV1,
  createSeller,
  type Seller,
  startCommerceApi,
  type TestApi,
} from '../../commerce/testing.ts';
import { User } from '../../db/entities/index.ts';
import { eventually } from '../../devstack/eventually.ts';
import { authOperations } from './operations.ts';
import { browserAuthClient } from './testing.ts';

const password = 'correct horse battery';
const uniqueEmail = () => `restore-${randomBytes(6).toString('hex')}@example.com`;

interface RestoreAnswer {
  id: string;
  status: string;
  cancel_at_period_end: boolean;
  ends_at: string | null;
  customer_id: string;
  product: { id: string; organization: { id: string } };
}

describe('subscription/restore through the Better Auth client', () => {
  let api: TestApi;
  let seller: Seller;
  let otherSeller: Seller;
  let plan: Product;
  let otherPlan: Product;
  let trustedOrigin: string;

  const monthlyPlan = (owner: Seller) =>
    owner.polar.products.create({
      name: 'Monthly',
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount: 1500 }],
    });

  before(async () => {
    api = await startCommerceApi();
    trustedOrigin = new URL(api.config.api.publicUrl).origin;
    [seller, otherSeller] = await Promise.all([createSeller(api), createSeller(api)]);
    [plan, otherPlan] = await Promise.all([monthlyPlan(seller), monthlyPlan(otherSeller)]);
  });
  after(() => api.close());

  /** A user signed up with `email` in a browser of the trusted origin, verified when asked. */
  async function signedUp(email = uniqueEmail(), { verified = true } = {}) {
    const browser = browserAuthClient(api.url, trustedOrigin);
    const { data } = await browser.client.signUp.email({ email, password, name: 'Ada' });
    assert.ok(data);
    if (verified) await markVerified(data.user.id);
    return { ...browser, email, userId: data.user.id };
  }

  const markVerified = (userId: string) =>
    api.orm.em.fork().nativeUpdate(User, { id: userId }, { emailVerified: true });

  /** The buyer at `email` subscribes to `owner`'s `product` through a checkout; answers its id. */
  async function subscribed(owner: Seller, product: Product, email: string): Promise<string> {
    const checkout = await owner.polar.checkouts.create({ products: [product.id] });
    await buyerClient(api).checkouts.clientConfirm({
      clientSecret: checkout.clientSecret,
      checkoutConfirmStripe: { ...buyerDetails(), customerEmail: email },
    });
    const settled = await eventually(
      () => owner.polar.checkouts.get({ id: checkout.id }),
      (found) => found.status === 'succeeded' && found.subscriptionId !== null,
      { what: `checkout ${checkout.id} succeeded with its subscription` },
    );
    return settled.subscriptionId as string;
  }

  /** The seller cancels the subscription at the period's end. */
  async function cancelAtPeriodEnd(owner: Seller, subscriptionId: string) {
    const canceled = await owner.polar.subscriptions.update({
      id: subscriptionId,
      subscriptionUpdate: { cancelAtPeriodEnd: true },
    });
    assert.equal(canceled.cancelAtPeriodEnd, true);
  }

  /** What the subscription's workflow holds: its schedule and what it waits to do next. */
  const workflowState = (owner: Seller, subscriptionId: string) =>
    eventually(
      () => callV1(api, owner.token, 'GET', `/v1/subscriptions/${subscriptionId}/workflow`),
      (answer) => answer.status === 200,
      { what: `the workflow of subscription ${subscriptionId} answering` },
    );

  const restore = (
    client: ReturnType<typeof browserAuthClient>['client'],
    body: { subscriptionId?: string; referenceId?: string } = {},
  ) =>
    client.$fetch<RestoreAnswer, { code: string; message: string }>('/subscription/restore', {
      method: 'POST',
      body,
    });

  const eventsOf = async (subscriptionId: string) => {
    const rows = await api.orm.em
      .fork()
      .getConnection()
      .execute<{ type: string }[]>(
        `select type from outbox_events
         where type like 'subscription.%' and data->>'id' = ? order by created_at, id`,
        [subscriptionId],
      );
    return rows.map((row) => row.type);
  };

  it('undoes the scheduled cancellation of the user’s own subscription through its workflow', async () => {
    const email = uniqueEmail();
    const subscriptionId = await subscribed(seller, plan, email);
    await cancelAtPeriodEnd(seller, subscriptionId);
    assert.equal((await workflowState(seller, subscriptionId)).body.nextAction.kind, 'end');

    // An address typed at sign-up proves nothing: unverified, the user is nobody's customer.
    const user = await signedUp(email.toUpperCase(), { verified: false });
    const unverified = await restore(user.client, { subscriptionId });
    assert.equal(unverified.error?.status, 404);
    assert.equal(unverified.error?.code, 'SUBSCRIPTION_NOT_FOUND');

    await markVerified(user.userId);
    const { data, error } = await restore(user.client, { subscriptionId });
    assert.equal(error, null);
    assert.equal(data?.id, subscriptionId);
    assert.equal(data?.status, 'active');
    assert.equal(data?.cancel_at_period_end, false);
    assert.equal(data?.ends_at, null);
    assert.equal(data?.product.organization.id, seller.organizationId);
    assert.ok(!('metadata' in (data ?? {})), 'the subscription as its customer sees it');
    const documented = { operations: authOperations, envelope: 'auth' } as const;
    const path = '/api/auth/subscription/restore';
    // The client turned the wire's date strings into Dates: JSON gives the strings back.
    const body = JSON.parse(JSON.stringify(data));
    assert.equal(answerProblem(documented, { method: 'POST', path, status: 200, body }), null);
    const refusal = { code: unverified.error?.code, message: unverified.error?.message };
    assert.equal(
      answerProblem(documented, { method: 'POST', path, status: 404, body: refusal }),
      null,
    );

    const seen = await seller.polar.subscriptions.get({ id: subscriptionId });
    assert.equal(seen.cancelAtPeriodEnd, false);
    assert.equal(seen.canceledAt, null);
    const state = (await workflowState(seller, subscriptionId)).body;
    assert.equal(state.schedule.cancelAtPeriodEnd, false);
    assert.equal(state.nextAction.kind, 'renewal');
    assert.deepEqual((await eventsOf(subscriptionId)).slice(-2), [
      'subscription.updated',
      'subscription.uncanceled',
    ]);

    // Restored already: nothing is scheduled to be undone.
    const again = await restore(user.client, { subscriptionId });
    assert.equal(again.error?.status, 400);
    assert.equal(again.error?.code, 'SUBSCRIPTION_IS_NOT_SCHEDULED_FOR_CANCELLATION');
  });

  it('takes the user’s only subscription when none is named, and asks which one among several', async () => {
    const user = await signedUp();
    const first = await subscribed(seller, plan, user.email);
    await cancelAtPeriodEnd(seller, first);
    const { data } = await restore(user.client);
    assert.equal(data?.id, first);
    assert.equal(data?.cancel_at_period_end, false);

    // A customer of another seller too, with the same address: two live subscriptions.
    const second = await subscribed(otherSeller, otherPlan, user.email);
    await cancelAtPeriodEnd(otherSeller, second);
    const ambiguous = await restore(user.client);
    assert.equal(ambiguous.error?.status, 400);
    assert.equal(ambiguous.error?.code, 'SUBSCRIPTION_ID_NOT_FOUND');
    const named = await restore(user.client, { subscriptionId: second, referenceId: user.userId });
    assert.equal(named.data?.id, second);
    assert.equal(named.data?.product.organization.id, otherSeller.organizationId);
  });

  it('answers another customer’s subscription exactly as an unknown one, and changes nothing', async () => {
    const owner = await signedUp();
    const subscriptionId = await subscribed(seller, plan, owner.email);
    await cancelAtPeriodEnd(seller, subscriptionId);
    const stranger = await signedUp();
    // The stranger is a customer too, with a subscription of their own.
    await subscribed(seller, plan, stranger.email);

    for (const body of [
      { subscriptionId },
      { subscriptionId: randomUUID() },
      { subscriptionId: 'not-an-id' },
      { subscriptionId, referenceId: owner.userId },
    ]) {
      const refused = await restore(stranger.client, body);
      assert.equal(refused.error?.status, 404, JSON.stringify(body));
      assert.equal(refused.error?.code, 'SUBSCRIPTION_NOT_FOUND');
    }
    const noCustomer = await signedUp();
    assert.equal((await restore(noCustomer.client)).error?.status, 404);
    const signedOut = browserAuthClient(api.url, trustedOrigin);
    assert.equal((await restore(signedOut.client, { subscriptionId })).error?.status, 401);
    // The owner's cookie sent from an untrusted page: refused before anything is read.
    const forged = await fetch(`${api.url}/api/auth/subscription/restore`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        origin: 'https://evil.example',
        cookie: owner.cookies.header(),
      },
      body: JSON.stringify({ subscriptionId }),
    });
    assert.equal(forged.status, 403);

    const seen = await seller.polar.subscriptions.get({ id: subscriptionId });
    assert.equal(seen.cancelAtPeriodEnd, true, 'still ending');
  });

  it('refuses a subscription that has ended', async () => {
    const user = await signedUp();
    const subscriptionId = await subscribed(seller, plan, user.email);
    await seller.polar.subscriptions.revoke({ id: subscriptionId });
    const refused = await restore(user.client, { subscriptionId });
    assert.equal(refused.error?.status, 400);
    assert.equal(refused.error?.code, 'SUBSCRIPTION_IS_NOT_ACTIVE');
  });
});
