import assert from 'node:assert/strict';
import { Subscription } from '../../db/entities/index.ts';
import { eventually } from '../../devstack/eventually.ts';
import { buyerClient, buyerDetails, testCards } from '../orders/testing.ts';
import { callV1, type Seller, type TestApi } from '../testing.ts';

/**
 * A new customer on test clock `clockId` subscribes to `productId` through a checkout (card:
 * visa; `seats` for a seat-based price); answers the subscription's id and the customer's email.
 */
export async function subscribeCustomerOnClock(
  api: TestApi,
  seller: Seller,
  productId: string,
  clockId: string,
  seats?: number,
): Promise<{ subscriptionId: string; email: string }> {
  const details = buyerDetails();
  const customer = await callV1(api, seller.token, 'POST', '/v1/customers/', {
    email: details.customerEmail,
    test_clock_id: clockId,
  });
  assert.equal(customer.status, 201, JSON.stringify(customer.body));
  const checkout = await seller.polar.checkouts.create({
    products: [productId],
    customerId: customer.body.id,
    seats,
  });
  await buyerClient(api).checkouts.clientConfirm({
    clientSecret: checkout.clientSecret,
    checkoutConfirmStripe: details,
  });
  const settled = await eventually(
    () => seller.polar.checkouts.get({ id: checkout.id }),
    (found) => found.status === 'succeeded' && found.subscriptionId !== null,
    { what: `checkout ${checkout.id} succeeded` },
  );
  return {
    subscriptionId: settled.subscriptionId as string,
    email: details.customerEmail as string,
  };
}

/**
 * A new customer on a new test clock frozen at `startAt` subscribes to `productId` through a
 * checkout (card: visa; `seats` for a seat-based price); answers the subscription's id, the
 * clock's and the customer's email.
 */
export async function subscribeOnTestClock(
  api: TestApi,
  seller: Seller,
  productId: string,
  startAt: string,
  seats?: number,
): Promise<{ subscriptionId: string; clockId: string; email: string }> {
  const clock = await callV1(api, seller.token, 'POST', '/v1/test-clocks/', {
    frozen_time: startAt,
  });
  assert.equal(clock.status, 201, JSON.stringify(clock.body));
  const clockId = clock.body.id as string;
  return { ...(await subscribeCustomerOnClock(api, seller, productId, clockId, seats)), clockId };
}

/** Moves the seller's test clock to `frozenTime` and waits until every subscription on it was told. */
export async function advanceTestClock(
  api: TestApi,
  seller: Seller,
  clockId: string,
  frozenTime: string,
) {
  const advanced = await callV1(api, seller.token, 'POST', `/v1/test-clocks/${clockId}/advance`, {
    frozen_time: frozenTime,
  });
  assert.equal(advanced.status, 200, JSON.stringify(advanced.body));
  await eventually(
    () => callV1(api, seller.token, 'GET', `/v1/test-clocks/${clockId}`),
    (clock) => clock.body.status === 'ready',
    { what: `test clock ${clockId} ready at ${frozenTime}` },
  );
}

/** The subscription's saved card becomes `card`: renewals charge it from now on. */
export const saveCard = (api: TestApi, subscriptionId: string, card: string) =>
  api.orm.em.fork().nativeUpdate(Subscription, subscriptionId, { stripePaymentMethodId: card });

/**
 * Subscribes on a clock frozen at `startAt`, the saved card then runs out of funds, and the
 * clock moves to `renewAt` (past the period's end): answers the subscription once its renewal
 * was declined (past due).
 */
export async function declinedRenewal(
  api: TestApi,
  seller: Seller,
  productId: string,
  { startAt, renewAt }: { startAt: string; renewAt: string },
): Promise<string> {
  const { subscriptionId, clockId } = await subscribeOnTestClock(api, seller, productId, startAt);
  await saveCard(api, subscriptionId, testCards.insufficientFunds);
  const advanced = await callV1(api, seller.token, 'POST', `/v1/test-clocks/${clockId}/advance`, {
    frozen_time: renewAt,
  });
  assert.equal(advanced.status, 200, JSON.stringify(advanced.body));
  await eventually(
    () => seller.polar.subscriptions.get({ id: subscriptionId }),
    (found) => found.status === 'past_due',
    { what: `subscription ${subscriptionId} past due`, timeoutMs: 90_000 },
  );
  return subscriptionId;
}
