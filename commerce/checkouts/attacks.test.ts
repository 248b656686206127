import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Polar } from '@polar-sh/sdk';
import { startApiServer } from '../../api/server.ts';
import { loadRuntimeConfig } from '../../config/env.ts';
import { Checkout, CustomerSession, DiscountRedemption, Payment } from '../../db/entities/index.ts';
import { eventually } from '../../devstack/eventually.ts';
import { stripeSignature } from '../../devstack/stripe-simulator.ts';
import { workflowIds } from '../../processes/workflow-ids.ts';
import {
  buy,
  buyerClient,
  buyerDetails,
  ordersOfCheckout,
  settledCheckout,
  testCards,
} from '../orders/testing.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';
import { expireCheckout } from './outcomes.ts';

/**
 * Attacks on the public checkout: a stranger holding a checkout's client secret must not reach an
 * existing customer's portal, and a checkout that does not succeed must not use up a discount.
 */
describe('checkout attacks', () => {
  let api: TestApi;
  let seller: Seller;
  let buyer: Polar;
  let ebookId: string;
  /** An existing customer with a paid order: the victim. */
  let victim: { id: string; email: string };

  const em = () => api.orm.em.fork();
  const sessionsOf = (customerId: string) => em().count(CustomerSession, { customer: customerId });

  /** The confirm as the hosted page sends it, read off the wire. */
  const confirm = (clientSecret: string, body: Record<string, unknown>) =>
    callV1(api, null, 'POST', `/v1/checkouts/client/${clientSecret}/confirm`, body);

  /** A buyer's confirm body with `email` and `card`. */
  const confirmBody = (email: string, card: string) => ({
    customer_email: email,
    customer_name: 'Mallory',
    customer_billing_address: { country: 'FR', city: 'Paris', line1: '1 rue de Rivoli' },
    confirmation_token_id: card,
  });

  /** The customer a portal token opens: 200 with the customer, or the refusal's status. */
  const portalWith = (token: string) =>
    callV1(api, token, 'GET', '/v1/customer-portal/customers/me');

  /** A checkout opened by following the seller's public checkout link, as anyone can. */
  async function checkoutFromPublicLink(): Promise<{ id: string; clientSecret: string }> {
    const link = await seller.polar.checkoutLinks.create({
      paymentProcessor: 'stripe',
      products: [ebookId],
    });
    const response = await fetch(`${api.url}/v1/checkout-links/${link.clientSecret}/redirect`, {
      redirect: 'manual',
    });
    assert.equal(response.status, 302);
    const clientSecret = (response.headers.get('location') ?? '').split('/checkout/')[1] as string;
    const checkout = await buyer.checkouts.clientGet({ clientSecret });
    return { id: checkout.id, clientSecret };
  }

  /** A single-use code of the seller taking half off. */
  async function singleUseCode() {
    const code = `ONCE${randomUUID().replaceAll('-', '').slice(0, 10)}`;
    const discount = await seller.polar.discounts.create({
      name: 'Half off, once',
      type: 'percentage',
      basisPoints: 5000,
      duration: 'once',
      code,
      maxRedemptions: 1,
    });
    return { id: discount.id, code };
  }

  /** A new checkout of the ebook with `code` applied by the buyer (refused once used up). */
  async function checkoutWithCode(code: string) {
    const created = await seller.polar.checkouts.create({ products: [ebookId] });
    const updated = await buyer.checkouts.clientUpdate({
      clientSecret: created.clientSecret,
      checkoutUpdatePublic: { discountCode: code },
    });
    assert.equal(updated.discountAmount, 1250);
    return updated;
  }

  type Rival = Awaited<ReturnType<typeof checkoutWithCode>>;

  /** The checkout's payment once Stripe asked for 3-D Secure. */
  const pendingPaymentOf = (checkoutId: string) =>
    eventually(
      () => em().findOne(Payment, { checkoutId }),
      (payment) => payment?.processorId != null,
      { what: 'the payment waiting for authentication' },
    );

  /** Stripe's word that the checkout's payment waiting for 3-D Secure failed, by its webhook. */
  async function declinePendingPayment(checkoutId: string) {
    const pending = await pendingPaymentOf(checkoutId);
    const event = {
      id: `evt_${randomUUID().replaceAll('-', '')}`,
      object: 'event',
      type: 'payment_intent.payment_failed',
      created: Math.floor(Date.now() / 1000),
      data: {
        object: {
          id: pending?.processorId,
          object: 'payment_intent',
          status: 'requires_payment_method',
          last_payment_error: {
            code: 'payment_intent_authentication_failure',
            message: 'The authentication of the payment method failed.',
          },
          amount: 1250,
          currency: 'usd',
          metadata: {
            workflow_id: workflowIds.checkout(checkoutId),
            payment_id: pending?.id,
            checkout_id: checkoutId,
          },
        },
      },
    };
    const payload = JSON.stringify(event);
    const secret = loadRuntimeConfig().stripe.webhookSecret ?? '';
    const delivered = await fetch(`${api.url}/v1/integrations/stripe/webhook`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'stripe-signature': stripeSignature(payload, secret),
      },
      body: payload,
    });
    assert.equal(delivered.status, 200);
  }

  const redemptionsOf = async (discountId: string) =>
    (await seller.polar.discounts.get({ id: discountId })).redemptionsCount;

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
    buyer = buyerClient(api);
    ebookId = (
      await seller.polar.products.create({
        name: 'Ebook',
        prices: [{ amountType: 'fixed', priceAmount: 2500 }],
      })
    ).id;
    const { order } = await buy(api, seller, ebookId, buyerDetails(testCards.visa));
    assert.ok(order);
    victim = { id: order.customerId, email: order.customer.email };
  });
  after(() => api.close());

  describe("a stranger confirming with an existing customer's email", () => {
    it('with a card that declines gets no session for them, and nothing opens their portal', async () => {
      const sessions = await sessionsOf(victim.id);
      const { id, clientSecret } = await checkoutFromPublicLink();
      const confirmed = await confirm(clientSecret, confirmBody(victim.email, testCards.declined));
      assert.equal(confirmed.status, 200);
      assert.equal(confirmed.body.status, 'confirmed');
      assert.equal(confirmed.body.customer_id, victim.id);
      assert.equal(confirmed.body.customer_session_token, '');
      assert.equal((await settledCheckout(seller, id)).status, 'failed');
      assert.equal((await portalWith(confirmed.body.customer_session_token)).status, 401);
      assert.equal(await sessionsOf(victim.id), sessions);

      // Retried, with the email written differently: still nothing.
      const retried = await confirm(
        clientSecret,
        confirmBody(victim.email.toUpperCase(), testCards.declined),
      );
      assert.equal(retried.body.customer_session_token, '');
      assert.equal(await sessionsOf(victim.id), sessions);
    });

    it('with a card that pays gets no session for them either (Polar’s SDK reads the empty token)', async () => {
      const sessions = await sessionsOf(victim.id);
      const { id, clientSecret } = await checkoutFromPublicLink();
      const confirmed = await buyer.checkouts.clientConfirm({
        clientSecret,
        checkoutConfirmStripe: { ...buyerDetails(testCards.visa), customerEmail: victim.email },
      });
      assert.equal(confirmed.status, 'confirmed');
      assert.equal(confirmed.customerSessionToken, '');
      assert.equal((await settledCheckout(seller, id)).status, 'succeeded');
      assert.equal(await sessionsOf(victim.id), sessions);
    });
  });

  it("a new buyer's session opens the portal only once the payment succeeded", async () => {
    const email = `fresh-${randomUUID()}@example.com`;
    const created = await seller.polar.checkouts.create({ products: [ebookId] });
    const declined = await confirm(created.clientSecret, confirmBody(email, testCards.declined));
    assert.match(declined.body.customer_session_token, /^polar_cst_/);
    assert.equal((await settledCheckout(seller, created.id)).status, 'failed');
    assert.equal((await portalWith(declined.body.customer_session_token)).status, 401);

    const paid = await confirm(created.clientSecret, confirmBody(email, testCards.visa));
    assert.match(paid.body.customer_session_token, /^polar_cst_/);
    assert.equal((await settledCheckout(seller, created.id)).status, 'succeeded');
    const portal = await portalWith(paid.body.customer_session_token);
    assert.equal(portal.status, 200);
    assert.equal(portal.body.email, email);
  });

  it('a session stays closed while the payment waits for authentication', async () => {
    const created = await seller.polar.checkouts.create({ products: [ebookId] });
    const email = `pending-${randomUUID()}@example.com`;
    const confirmed = await confirm(
      created.clientSecret,
      confirmBody(email, testCards.authenticationRequired),
    );
    assert.match(confirmed.body.customer_session_token, /^polar_cst_/);
    assert.equal((await pendingPaymentOf(created.id))?.status, 'pending');
    assert.equal((await seller.polar.checkouts.get({ id: created.id })).status, 'confirmed');
    assert.equal((await portalWith(confirmed.body.customer_session_token)).status, 401);
  });

  it('the customer the seller named on the checkout gets their session once paid', async () => {
    const byId = await seller.polar.checkouts.create({
      products: [ebookId],
      customerId: victim.id,
    });
    const named = await confirm(byId.clientSecret, confirmBody(victim.email, testCards.visa));
    assert.match(named.body.customer_session_token, /^polar_cst_/);
    assert.equal((await settledCheckout(seller, byId.id)).status, 'succeeded');
    const portal = await portalWith(named.body.customer_session_token);
    assert.deepEqual([portal.status, portal.body.id], [200, victim.id]);

    const externalId = `ext-${randomUUID()}`;
    const known = await seller.polar.customers.create({
      email: `known-${randomUUID()}@example.com`,
      externalId,
    });
    const byExternalId = await seller.polar.checkouts.create({
      products: [ebookId],
      externalCustomerId: externalId,
    });
    const external = await confirm(
      byExternalId.clientSecret,
      confirmBody(known.email, testCards.visa),
    );
    assert.equal((await settledCheckout(seller, byExternalId.id)).status, 'succeeded');
    const opened = await portalWith(external.body.customer_session_token);
    assert.deepEqual([opened.status, opened.body.id], [200, known.id]);
  });

  describe('a single-use discount code', () => {
    it('is given back by a declined confirm: another checkout redeems it, the declined one no longer can', async () => {
      const discount = await singleUseCode();
      const declined = await checkoutWithCode(discount.code);
      const email = `decline-${randomUUID()}@example.com`;
      const first = await confirm(declined.clientSecret, confirmBody(email, testCards.declined));
      assert.equal(first.status, 200);
      assert.equal((await settledCheckout(seller, declined.id)).status, 'failed');
      assert.equal(await redemptionsOf(discount.id), 0);

      const other = await checkoutWithCode(discount.code);
      const redeemed = await confirm(
        other.clientSecret,
        confirmBody(`other-${randomUUID()}@example.com`, testCards.visa),
      );
      assert.equal(redeemed.status, 200);
      assert.equal((await settledCheckout(seller, other.id)).status, 'succeeded');
      const [order] = await ordersOfCheckout(seller, other.id);
      assert.deepEqual([order?.discountId, order?.totalAmount], [discount.id, 1250]);
      assert.equal(await redemptionsOf(discount.id), 1);

      const again = await confirm(declined.clientSecret, confirmBody(email, testCards.visa));
      assert.equal(again.status, 422);
      assert.deepEqual(
        again.body.detail.map((issue: { loc: string[] }) => issue.loc),
        [['body', 'discount_id']],
      );
      assert.equal(await redemptionsOf(discount.id), 1);
    });

    it('confirmed by two checkouts at once is redeemed once; declined, the other takes it', async () => {
      const discount = await singleUseCode();
      const rivals = [await checkoutWithCode(discount.code), await checkoutWithCode(discount.code)];
      // Both payments would wait for 3-D Secure: the winner holds the code until it is decided.
      const answers = await Promise.all(
        rivals.map((rival) =>
          confirm(
            rival.clientSecret,
            confirmBody(`rival-${randomUUID()}@example.com`, testCards.authenticationRequired),
          ),
        ),
      );
      assert.deepEqual(answers.map((answer) => answer.status).sort(), [200, 422]);
      const winner = rivals[answers.findIndex((answer) => answer.status === 200)] as Rival;
      const loser = rivals[answers.findIndex((answer) => answer.status === 422)] as Rival;
      assert.equal(await redemptionsOf(discount.id), 1);
      assert.equal(await em().count(DiscountRedemption, { discount: discount.id }), 1);

      await declinePendingPayment(winner.id);
      assert.equal((await settledCheckout(seller, winner.id)).status, 'failed');
      assert.equal(await redemptionsOf(discount.id), 0);
      const retried = await confirm(
        loser.clientSecret,
        confirmBody(`loser-${randomUUID()}@example.com`, testCards.visa),
      );
      assert.equal(retried.status, 200);
      assert.equal((await settledCheckout(seller, loser.id)).status, 'succeeded');
      assert.equal(await redemptionsOf(discount.id), 1);
      assert.equal(await em().count(DiscountRedemption, { discount: discount.id }), 1);
    });

    it('is not kept by a checkout that expired after its payment failed', async () => {
      const discount = await singleUseCode();
      const config = loadRuntimeConfig();
      const shortLived = await startApiServer(
        { ...config, checkouts: { ...config.checkouts, ttlSeconds: 8 } },
        { host: '127.0.0.1', port: 0 },
      );
      try {
        // The seller's token works on any API of the same database; this one's checkouts live 8 s.
        const created = await fetch(`${shortLived.url}/v1/checkouts/`, {
          method: 'POST',
          headers: { authorization: `Bearer ${seller.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ products: [ebookId] }),
        });
        const { id, client_secret: clientSecret } = (await created.json()) as {
          id: string;
          client_secret: string;
        };
        await buyer.checkouts.clientUpdate({
          clientSecret,
          checkoutUpdatePublic: { discountCode: discount.code },
        });
        const email = `late-${randomUUID()}@example.com`;
        assert.equal(
          (await confirm(clientSecret, confirmBody(email, testCards.declined))).status,
          200,
        );
        const outcome = await api.temporal.workflow.getHandle(workflowIds.checkout(id)).result();
        assert.equal(outcome, 'expired');
      } finally {
        await shortLived.close();
      }
      assert.equal(await redemptionsOf(discount.id), 0);
      const next = await checkoutWithCode(discount.code);
      assert.equal(next.discountId, discount.id);
    });

    it('held by a failed checkout from before failures gave it back is released at expiry', async () => {
      const discount = await singleUseCode();
      const created = await checkoutWithCode(discount.code);
      // What a checkout that failed before this fix left behind: failed, the code still spent.
      const manager = em();
      await manager.nativeUpdate(Checkout, { id: created.id }, { status: 'failed' });
      manager.create(DiscountRedemption, { discount: discount.id, checkout: created.id });
      await manager.flush();
      await manager
        .getConnection()
        .execute('update discounts set redemptions_count = 1 where id = ?', [discount.id]);

      await expireCheckout(em(), created.id, api.config.api.publicUrl);
      assert.equal(await redemptionsOf(discount.id), 0);
      assert.equal(await em().count(DiscountRedemption, { checkout: created.id }), 0);
      await expireCheckout(em(), created.id, api.config.api.publicUrl);
      assert.equal(await redemptionsOf(discount.id), 0);
    });
  });
});
