import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { CustomerPaymentMethod } from '@polar-sh/sdk/models/components/customerpaymentmethod.js';
import { CustomerNotReady } from '@polar-sh/sdk/models/errors/customernotready.js';
import { HTTPValidationError } from '@polar-sh/sdk/models/errors/httpvalidationerror.js';
import { PaymentMethodInUseByActiveSubscription } from '@polar-sh/sdk/models/errors/paymentmethodinusebyactivesubscription.js';
import { ResourceNotFound } from '@polar-sh/sdk/models/errors/resourcenotfound.js';
import { SDKError } from '@polar-sh/sdk/models/errors/sdkerror.js';
import { Customer, Order, Subscription } from '../../db/entities/index.ts';
import { stripeSimulatorControl } from '../../devstack/stripe-simulator.ts';
import { createStripeClient } from '../../integrations/stripe/client.ts';
import { buy, buyerClient, buyerDetails, settledCheckout } from '../orders/testing.ts';
import { declinedRenewal } from '../subscriptions/testing.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';

const returnUrl = 'https://shop.example.com/portal/cards';

/** The SetupIntent a `requires_action` answer's client secret belongs to. */
const setupIntentOf = (clientSecret: string) => clientSecret.split('_secret_')[0] as string;

/** The 422 the SDK raised: where and why the first refused field was refused. */
function firstIssue(error: unknown) {
  assert.ok(error instanceof HTTPValidationError, String(error));
  const [issue] = error.detail ?? [];
  return { loc: issue?.loc, msg: issue?.msg };
}

const cardOf = (method: CustomerPaymentMethod) => {
  assert.equal(method.type, 'card');
  return 'methodMetadata' in method ? method.methodMetadata : assert.fail('no card details');
};

describe('customer portal payment methods (/v1/customer-portal/customers/me/payment-methods)', () => {
  let api: TestApi;
  let seller: Seller;
  let planId: string;

  /** A new customer of the seller and a portal session for it. */
  async function customerWithSession() {
    const email = `buyer-${randomUUID().slice(0, 8)}@example.com`;
    const customer = await seller.polar.customers.create({ email });
    const session = await seller.polar.customerSessions.create({ customerId: customer.id });
    return { customerId: customer.id, security: { customerSession: session.token } };
  }

  const portal = () => seller.polar.customerPortal.customers;
  const listed = async (security: { customerSession: string }) =>
    (await portal().listPaymentMethods(security, {})).result;
  const storedCustomer = (id: string) => api.orm.em.fork().findOneOrFail(Customer, id);

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
    const plan = await seller.polar.products.create({
      name: 'Pro plan',
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount: 2900 }],
    });
    planId = plan.id;
  });
  after(() => api.close());

  it('lists the card a subscription was bought with, sets a new default that renewals charge, and keeps the charged card', async () => {
    const { order } = await buy(api, seller, planId);
    assert.ok(order?.subscriptionId, 'the checkout started a subscription');
    const { token } = await seller.polar.customerSessions.create({
      customerId: order.customer.id,
    });
    const security = { customerSession: token };

    const bought = await listed(security);
    assert.deepEqual(
      bought.items.map((method) => method.id),
      ['pm_card_visa'],
    );
    const [visa] = bought.items;
    assert.ok(visa);
    assert.equal(visa.processor, 'stripe');
    assert.equal(visa.customerId, order.customer.id);
    assert.deepEqual(
      { brand: cardOf(visa).brand, last4: cardOf(visa).last4 },
      { brand: 'visa', last4: '4242' },
    );
    // The card the checkout saved became the default of a customer who had none.
    assert.equal((await portal().get(security)).defaultPaymentMethodId, 'pm_card_visa');

    const added = await portal().addPaymentMethod(security, {
      confirmationTokenId: 'pm_card_mastercard',
      setDefault: true,
      returnUrl,
    });
    assert.equal(added.status, 'succeeded');
    assert.ok('paymentMethod' in added);
    assert.equal(added.paymentMethod.id, 'pm_card_mastercard');
    assert.equal(cardOf(added.paymentMethod).last4, '4444');
    const me = await portal().get(security);
    assert.equal(me.defaultPaymentMethodId, 'pm_card_mastercard');
    const subscription = await api.orm.em.fork().findOneOrFail(Subscription, order.subscriptionId);
    assert.equal(subscription.stripePaymentMethodId, 'pm_card_mastercard');

    const both = await listed(security);
    assert.deepEqual(both.items.map((method) => method.id).sort(), [
      'pm_card_mastercard',
      'pm_card_visa',
    ]);
    const firstPage = await portal().listPaymentMethods(security, { limit: 1 });
    assert.equal(firstPage.result.items.length, 1);
    assert.deepEqual(firstPage.result.pagination, { totalCount: 2, maxPage: 2 });

    const refused = await portal()
      .deletePaymentMethod(security, { id: 'pm_card_mastercard' })
      .catch((error: unknown) => error);
    assert.ok(refused instanceof PaymentMethodInUseByActiveSubscription, String(refused));
    // The card no subscription charges any more goes.
    await portal().deletePaymentMethod(security, { id: 'pm_card_visa' });
    assert.deepEqual(
      (await listed(security)).items.map((method) => method.id),
      ['pm_card_mastercard'],
    );
    assert.equal((await portal().get(security)).defaultPaymentMethodId, 'pm_card_mastercard');
  });

  it('keeps the default a customer already has when a checkout saves another card', async () => {
    const { customerId, security } = await customerWithSession();
    await api.orm.em
      .fork()
      .nativeUpdate(Customer, customerId, { defaultPaymentMethodId: 'pm_card_mastercard' });
    const checkout = await seller.polar.checkouts.create({ products: [planId], customerId });
    const { customerEmail: _, ...details } = buyerDetails();
    await buyerClient(api).checkouts.clientConfirm({
      clientSecret: checkout.clientSecret,
      checkoutConfirmStripe: details,
    });
    const settled = await settledCheckout(seller, checkout.id);
    assert.equal(settled.status, 'succeeded');
    assert.equal((await portal().get(security)).defaultPaymentMethodId, 'pm_card_mastercard');
  });

  it('pays the failed renewal with the card the customer adds, and ends its dunning', async () => {
    const subscriptionId = await declinedRenewal(api, seller, planId, {
      startAt: '2027-06-01T08:00:00Z',
      renewAt: '2027-07-01T08:00:00Z',
    });
    const failing = await seller.polar.subscriptions.get({ id: subscriptionId });
    const { token } = await seller.polar.customerSessions.create({
      customerId: failing.customerId,
    });

    const added = await portal().addPaymentMethod(
      { customerSession: token },
      { confirmationTokenId: 'pm_card_visa', setDefault: true, returnUrl },
    );

    assert.equal(added.status, 'succeeded');
    const recovered = await seller.polar.subscriptions.get({ id: subscriptionId });
    assert.equal(recovered.status, 'active');
    const em = api.orm.em.fork();
    const [renewal] = await em.find(Order, {
      subscription: subscriptionId,
      billingReason: 'subscription_cycle',
    });
    assert.equal(renewal?.status, 'paid');
    const stored = await em.findOneOrFail(Subscription, subscriptionId);
    assert.equal(stored.stripePaymentMethodId, 'pm_card_visa');
    assert.equal(stored.recoveredBy, 'customer');
    assert.equal(stored.nextPaymentAttemptAt ?? null, null);
  });

  it('saves a 3-D Secure card after its holder authenticates, and refuses a failed authentication', async () => {
    const { customerId, security } = await customerWithSession();
    const notReady = await portal()
      .confirmPaymentMethod(security, { setupIntentId: 'seti_123', setDefault: false })
      .catch((error: unknown) => error);
    assert.ok(notReady instanceof CustomerNotReady, String(notReady));

    const pending = await portal().addPaymentMethod(security, {
      confirmationTokenId: 'pm_card_authenticationRequired',
      setDefault: true,
      returnUrl,
    });
    assert.equal(pending.status, 'requires_action');
    assert.ok('clientSecret' in pending);
    const setupIntentId = setupIntentOf(pending.clientSecret);
    // Not authenticated yet: still waiting, nothing saved, no default.
    const waiting = await portal().confirmPaymentMethod(security, {
      setupIntentId,
      setDefault: true,
    });
    assert.equal(waiting.status, 'requires_action');
    assert.equal((await listed(security)).items.length, 0);
    assert.equal((await storedCustomer(customerId)).defaultPaymentMethodId, null);

    const simulator = stripeSimulatorControl(api.config.stripe.simulatorUrl ?? '');
    await simulator.authenticateSetup(setupIntentId);
    const confirmed = await portal().confirmPaymentMethod(security, {
      setupIntentId,
      setDefault: true,
    });
    assert.equal(confirmed.status, 'succeeded');
    assert.ok('paymentMethod' in confirmed);
    assert.equal(confirmed.paymentMethod.id, 'pm_card_authenticationRequired');
    assert.equal((await portal().get(security)).defaultPaymentMethodId, confirmed.paymentMethod.id);
    assert.deepEqual(
      (await listed(security)).items.map((method) => method.id),
      ['pm_card_authenticationRequired'],
    );

    const failing = await portal().addPaymentMethod(security, {
      confirmationTokenId: 'pm_card_threeDSecure2Required',
      setDefault: true,
      returnUrl,
    });
    assert.ok('clientSecret' in failing);
    await simulator.authenticateSetup(setupIntentOf(failing.clientSecret), { succeed: false });
    const refused = await portal()
      .confirmPaymentMethod(security, {
        setupIntentId: setupIntentOf(failing.clientSecret),
        setDefault: true,
      })
      .catch((error: unknown) => error);
    assert.deepEqual(firstIssue(refused), {
      loc: ['body', 'setup_intent_id'],
      msg: 'The latest attempt to set up the payment method has failed because authentication failed.',
    });
    assert.equal(
      (await storedCustomer(customerId)).defaultPaymentMethodId,
      'pm_card_authenticationRequired',
    );
  });

  it('names the 3-D Secure challenge of a card being added (next_action_url), as long as it waits', async () => {
    const { security } = await customerWithSession();
    const paymentMethods = '/v1/customer-portal/customers/me/payment-methods';
    const added = await callV1(api, security.customerSession, 'POST', paymentMethods, {
      confirmation_token_id: 'pm_card_threeDSecure2Required',
      set_default: false,
      return_url: returnUrl,
    });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    assert.equal(added.body.status, 'requires_action');
    const setupIntentId = setupIntentOf(added.body.client_secret);
    // The simulator's test challenge for that SetupIntent, where a page without Stripe.js goes.
    assert.match(added.body.next_action_url, new RegExp(`/_simulator/3ds/${setupIntentId}$`));
    const challenge = await fetch(added.body.next_action_url);
    assert.equal(challenge.status, 200);
    assert.match(await challenge.text(), /Save this card for future payments\?/);

    const confirm = () =>
      callV1(api, security.customerSession, 'POST', `${paymentMethods}/confirm`, {
        setup_intent_id: setupIntentId,
        set_default: false,
      });
    const waiting = await confirm();
    assert.equal(waiting.body.status, 'requires_action');
    assert.equal(waiting.body.next_action_url, added.body.next_action_url);

    const simulator = stripeSimulatorControl(api.config.stripe.simulatorUrl ?? '');
    await simulator.authenticateSetup(setupIntentId);
    const confirmed = await confirm();
    assert.equal(confirmed.body.status, 'succeeded');
    assert.equal(confirmed.body.next_action_url, undefined);
    assert.equal(confirmed.body.payment_method.id, 'pm_card_threeDSecure2Required');
  });

  it('tries a 3-D Secure test card again after its step failed, and answers one that passed as saved', async () => {
    const { security } = await customerWithSession();
    const simulator = stripeSimulatorControl(api.config.stripe.simulatorUrl ?? '');
    const add = () =>
      portal().addPaymentMethod(security, {
        confirmationTokenId: 'pm_card_threeDSecure2Required',
        setDefault: false,
        returnUrl,
      });
    const first = await add();
    assert.ok('clientSecret' in first);
    const failed = setupIntentOf(first.clientSecret);
    await simulator.authenticateSetup(failed, { succeed: false });

    const second = await add();
    assert.ok('clientSecret' in second);
    const retried = setupIntentOf(second.clientSecret);
    assert.notEqual(retried, failed);
    // Sent again while it waits: the same step.
    const waiting = await add();
    assert.ok('clientSecret' in waiting);
    assert.equal(setupIntentOf(waiting.clientSecret), retried);

    await simulator.authenticateSetup(retried);
    const saved = await add();
    assert.equal(saved.status, 'succeeded');
    assert.ok('paymentMethod' in saved);
    assert.equal(saved.paymentMethod.id, 'pm_card_threeDSecure2Required');
  });

  it('finds neither another customer’s card nor its SetupIntent', async () => {
    const owner = await customerWithSession();
    const stranger = await customerWithSession();
    await portal().addPaymentMethod(owner.security, {
      confirmationTokenId: 'pm_card_amex',
      setDefault: false,
      returnUrl,
    });
    const ownerPending = await portal().addPaymentMethod(owner.security, {
      confirmationTokenId: 'pm_card_authenticationRequired',
      setDefault: false,
      returnUrl,
    });
    assert.ok('clientSecret' in ownerPending);
    // The stranger has a Stripe customer of its own, with a card.
    await portal().addPaymentMethod(stranger.security, {
      confirmationTokenId: 'pm_card_visa_debit',
      setDefault: false,
      returnUrl,
    });

    const deleted = await portal()
      .deletePaymentMethod(stranger.security, { id: 'pm_card_amex' })
      .catch((error: unknown) => error);
    assert.ok(deleted instanceof ResourceNotFound, String(deleted));
    const confirmed = await portal()
      .confirmPaymentMethod(stranger.security, {
        setupIntentId: setupIntentOf(ownerPending.clientSecret),
        setDefault: true,
      })
      .catch((error: unknown) => error);
    // The SDK names no error for this call's 404: Polar's ResourceNotFound body is the answer.
    assert.ok(confirmed instanceof SDKError && confirmed.statusCode === 404, String(confirmed));
    assert.equal(JSON.parse(confirmed.body).error, 'ResourceNotFound');
    const unknown = await portal()
      .deletePaymentMethod(stranger.security, { id: 'pm_1NotACardOfAnyone' })
      .catch((error: unknown) => error);
    assert.ok(unknown instanceof ResourceNotFound, String(unknown));

    assert.deepEqual(
      (await listed(owner.security)).items.map((method) => method.id),
      ['pm_card_amex'],
    );
    assert.equal((await storedCustomer(stranger.customerId)).defaultPaymentMethodId, null);
  });

  it('refuses bad input with 422 and a declined card with its reason, saving nothing', async () => {
    const { customerId, security } = await customerWithSession();
    const session = security.customerSession;
    const path = '/v1/customer-portal/customers/me/payment-methods';
    const refusals: [unknown, (string | number)[]][] = [
      [{ set_default: true, return_url: returnUrl }, ['body', 'confirmation_token_id']],
      [
        { confirmation_token_id: 'tok_visa', set_default: true, return_url: returnUrl },
        ['body', 'confirmation_token_id'],
      ],
      [
        { confirmation_token_id: 'pm_card_visa', set_default: 'yes', return_url: returnUrl },
        ['body', 'set_default'],
      ],
      [
        {
          confirmation_token_id: 'pm_card_visa',
          set_default: true,
          return_url: 'javascript:alert(1)',
        },
        ['body', 'return_url'],
      ],
    ];
    for (const [body, loc] of refusals) {
      const answer = await callV1(api, session, 'POST', path, body);
      assert.equal(answer.status, 422, JSON.stringify(answer.body));
      assert.deepEqual(answer.body.detail[0].loc, loc);
    }
    const badConfirm = await callV1(api, session, 'POST', `${path}/confirm`, {
      setup_intent_id: 'pi_123',
      set_default: true,
    });
    assert.equal(badConfirm.status, 422);
    assert.deepEqual(badConfirm.body.detail[0].loc, ['body', 'setup_intent_id']);
    const badId = await callV1(api, session, 'DELETE', `${path}/not-a-card`);
    assert.equal(badId.status, 422);
    assert.deepEqual(badId.body.detail[0].loc, ['path', 'id']);
    // Refused before anything reached Stripe: the customer has no Stripe customer yet.
    assert.equal((await storedCustomer(customerId)).stripeCustomerId, null);

    const declined = await portal()
      .addPaymentMethod(security, {
        confirmationTokenId: 'pm_card_chargeDeclined',
        setDefault: true,
        returnUrl,
      })
      .catch((error: unknown) => error);
    assert.deepEqual(firstIssue(declined), {
      loc: ['body', 'confirmation_token_id'],
      msg: 'Your card was declined.',
    });
    assert.equal((await listed(security)).items.length, 0);
    assert.equal((await storedCustomer(customerId)).defaultPaymentMethodId, null);
  });

  it('saves the card of a Stripe Elements confirmation token, and refuses an unknown token before making anything', async () => {
    const { customerId, security } = await customerWithSession();
    const unknown = await portal()
      .addPaymentMethod(security, {
        confirmationTokenId: 'ctoken_1NeverIssued',
        setDefault: true,
        returnUrl,
      })
      .catch((error: unknown) => error);
    assert.deepEqual(firstIssue(unknown), {
      loc: ['body', 'confirmation_token_id'],
      msg: 'The card details are unknown or expired; enter the card again.',
    });
    assert.equal((await storedCustomer(customerId)).stripeCustomerId, null);

    const stripe = createStripeClient(api.config.stripe);
    const tokenOf = async (card: string) =>
      (await stripe.testHelpers.confirmationTokens.create({ payment_method: card })).id;
    const saved = await portal().addPaymentMethod(security, {
      confirmationTokenId: await tokenOf('pm_card_mastercard'),
      setDefault: true,
      returnUrl,
    });
    assert.equal(saved.status, 'succeeded');
    assert.ok('paymentMethod' in saved);
    assert.equal(cardOf(saved.paymentMethod).brand, 'mastercard');
    const stored = await storedCustomer(customerId);
    assert.ok(stored.stripeCustomerId);
    assert.equal(stored.defaultPaymentMethodId, saved.paymentMethod.id);
    assert.deepEqual(
      (await listed(security)).items.map((method) => method.id),
      [saved.paymentMethod.id],
    );
    // A token of a card that asks for 3-D Secure waits for its holder, as the card itself does.
    const pending = await portal().addPaymentMethod(security, {
      confirmationTokenId: await tokenOf('pm_card_threeDSecure2Required'),
      setDefault: true,
      returnUrl,
    });
    assert.equal(pending.status, 'requires_action');
  });
});
