/**
 * The soak's traffic: buyers, subscribers, finance and the seller's own code, all at once through
 * the public API, as clients that ride out a stack whose parts are failing: a call that gets no
 * answer, or a 5xx, is sent again (as the Polar SDK's retries would) until its deadline.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { CookieJar } from '../../api/auth/testing.ts';
import { stripeSimulatorControl } from '../../devstack/stripe-simulator.ts';
import { readCapturedMails } from '../../integrations/mail/captured-mail.ts';
import { extractLinks } from '../../integrations/mail/testing.ts';
import type { InvitationFates, ThreeDSecureCheckouts } from './invariants.ts';

/** Attempts and completions per kind of operation. */
export class OperationCounts {
  readonly counts = new Map<string, { attempted: number; completed: number; failed: number }>();
  /** The last few failures per kind, for the report. */
  readonly failures = new Map<string, string[]>();

  #of(kind: string) {
    const found = this.counts.get(kind) ?? { attempted: 0, completed: 0, failed: 0 };
    this.counts.set(kind, found);
    return found;
  }

  /** Runs one operation of `kind`, counting it; a failure is counted and kept, not thrown. */
  async run<T>(kind: string, operation: () => Promise<T>): Promise<T | undefined> {
    this.#of(kind).attempted += 1;
    try {
      const result = await operation();
      this.#of(kind).completed += 1;
      return result;
    } catch (error) {
      this.#of(kind).failed += 1;
      const kept = this.failures.get(kind) ?? [];
      if (kept.length < 5) kept.push(error instanceof Error ? error.message : String(error));
      this.failures.set(kind, kept);
      return undefined;
    }
  }
}

// biome-ignore lint/suspicious/noExplicitAny: the soak reads a few fields of the answers
type Json = any;

export interface Answer {
  status: number;
  body: Json;
}

/**
 * The seller's API as a retrying client; with `cookies`, a browser's (its Origin sent, its
 * session cookies kept), as the /api/auth routes want.
 */
export function apiClient(
  apiUrl: string,
  token: string | null,
  { patienceMs = 120_000, cookies }: { patienceMs?: number; cookies?: CookieJar } = {},
) {
  return async function call(
    method: string,
    path: string,
    body?: unknown,
    { expect }: { expect?: number[] } = {},
  ): Promise<Answer> {
    const deadline = Date.now() + patienceMs;
    let last = '';
    for (let attempt = 0; Date.now() < deadline; attempt++) {
      if (attempt > 0) await sleep(Math.min(250 * 2 ** Math.min(attempt, 4), 3000));
      try {
        const response = await fetch(`${apiUrl}${path}`, {
          method,
          headers: {
            'content-type': 'application/json',
            ...(token && { authorization: `Bearer ${token}` }),
            ...(cookies && { origin: new URL(apiUrl).origin, cookie: cookies.header() }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(30_000),
        });
        cookies?.store(response);
        const text = await response.text();
        const parsed = text ? JSON.parse(text) : null;
        if (response.status >= 500 || response.status === 429) {
          last = `${response.status} ${text.slice(0, 200)}`;
          continue;
        }
        if (expect && !expect.includes(response.status)) {
          throw new UnexpectedAnswer(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
        }
        return { status: response.status, body: parsed };
      } catch (error) {
        if (error instanceof UnexpectedAnswer) throw error;
        last = error instanceof Error ? error.message : String(error);
      }
    }
    throw new Error(`${method} ${path}: no answer in ${patienceMs / 1000} s (${last})`);
  };
}

class UnexpectedAnswer extends Error {}

export type Call = ReturnType<typeof apiClient>;

/** Polls `read` until `done` says yes, or fails after `timeoutMs`. */
export async function until<T>(
  what: string,
  read: () => Promise<T>,
  done: (value: T) => boolean,
  { timeoutMs = 180_000, intervalMs = 500 } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value)) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await sleep(intervalMs);
    value = await read();
  }
  return value;
}

export interface Catalog {
  oneTimeProductId: string;
  monthlyProductIds: [string, string];
  discountId: string;
  meterId: string;
  benefitId: string;
}

/** The seller's catalog the traffic buys from. */
export async function seedCatalog(call: Call): Promise<Catalog> {
  const ok = [200, 201];
  const benefit = await call(
    'POST',
    '/v1/benefits/',
    { type: 'custom', description: 'Soak community', properties: { note: 'Welcome' } },
    { expect: ok },
  );
  const oneTime = await call(
    'POST',
    '/v1/products/',
    { name: 'Soak ebook', prices: [{ amount_type: 'fixed', price_amount: 2500 }] },
    { expect: ok },
  );
  await call(
    'POST',
    `/v1/products/${oneTime.body.id}/benefits`,
    { benefits: [benefit.body.id] },
    { expect: ok },
  );
  const monthly = await Promise.all(
    [1000, 3000].map((amount, index) =>
      call(
        'POST',
        '/v1/products/',
        {
          name: `Soak plan ${index + 1}`,
          recurring_interval: 'month',
          prices: [{ amount_type: 'fixed', price_amount: amount }],
        },
        { expect: ok },
      ),
    ),
  );
  const discount = await call(
    'POST',
    '/v1/discounts/',
    { name: 'Soak 10%', type: 'percentage', basis_points: 1000, duration: 'once' },
    { expect: ok },
  );
  const meter = await call(
    'POST',
    '/v1/meters/',
    {
      name: 'Soak calls',
      filter: {
        conjunction: 'and',
        clauses: [{ property: 'name', operator: 'eq', value: 'soak.call' }],
      },
      aggregation: { func: 'sum', property: 'units' },
    },
    { expect: ok },
  );
  return {
    oneTimeProductId: oneTime.body.id,
    monthlyProductIds: [monthly[0]?.body.id, monthly[1]?.body.id],
    discountId: discount.body.id,
    meterId: meter.body.id,
    benefitId: benefit.body.id,
  };
}

/** What the lanes share: the clients, the counters, and when to stop. */
export interface Lane {
  seller: Call;
  buyer: Call;
  ops: OperationCounts;
  catalog: Catalog;
  apiUrl: string;
  stripeSimulatorUrl: string;
  /** Where the stack's mail capture writes what the app mails (invitations). */
  mailDirectory: string;
  /** True once no new operation should start. */
  over: () => boolean;
  random: () => number;
}

const buyerDetails = (label: string) => ({
  customer_email: `${label}@soak.example`,
  customer_name: 'Soak Buyer',
  customer_billing_address: { country: 'FR' },
});

/** The checkout's outcome once its payment settled: its status and, when paid, its order. */
async function settledCheckout(lane: Lane, checkoutId: string) {
  const settled = await until(
    `checkout ${checkoutId} settled`,
    () => lane.seller('GET', `/v1/checkouts/${checkoutId}`),
    (answer) => answer.status === 200 && !['confirmed', 'open'].includes(answer.body.status),
  );
  return settled.body as { status: string; customer_id: string; subscription_id: string | null };
}

/** The order a succeeded checkout paid (the API lists orders by customer). */
async function orderOf(lane: Lane, customerId: string, productId: string) {
  const orders = await until(
    `the order of customer ${customerId}`,
    () => lane.seller('GET', `/v1/orders/?customer_id=${customerId}&limit=100`),
    (answer) =>
      answer.status === 200 &&
      answer.body.items.some((order: Json) => order.product_id === productId),
  );
  return orders.body.items.find((order: Json) => order.product_id === productId) as {
    id: string;
    net_amount: number;
    status: string;
  };
}

/**
 * The buyer confirms with `card`. A confirm sent again after its answer was lost (the API killed
 * mid-request) is refused as not open: the first one went through, and its outcome follows.
 */
async function confirmAs(lane: Lane, clientSecret: string, label: string, card: string) {
  const answer = await lane.buyer(
    'POST',
    `/v1/checkouts/client/${clientSecret}/confirm`,
    { ...buyerDetails(label), confirmation_token_id: card },
    { expect: [200, 403] },
  );
  if (answer.status === 403) {
    if (answer.body?.error !== 'NotOpenCheckout') {
      throw new Error(`confirm refused: ${JSON.stringify(answer.body)}`);
    }
    await lane.ops.run('confirm sent again, refused as not open', async () => undefined);
  }
}

let sequence = 0;
const nextLabel = (kind: string) => `${kind}-${++sequence}-${Date.now()}`;

/**
 * Buyers of the one-time product: most pay at once, some with the discount, some are declined
 * first and confirm again with a good card, some leave their checkout open. Paid orders go to
 * `paid` for the refund lane.
 */
export async function buyers(
  lane: Lane,
  paid: { id: string; net_amount: number }[],
  limit: number,
) {
  for (let index = 0; index < limit && !lane.over(); index++) {
    const roll = lane.random();
    if (roll < 0.15) {
      // Left to expire: some untouched, some declined once with the discount held meanwhile.
      const declined = roll < 0.07;
      await lane.ops.run(
        declined ? 'checkout declined, then abandoned' : 'checkout abandoned',
        async () => {
          const checkout = await lane.seller(
            'POST',
            '/v1/checkouts/',
            { products: [lane.catalog.oneTimeProductId], discount_id: lane.catalog.discountId },
            { expect: [201] },
          );
          if (!declined) return;
          await confirmAs(
            lane,
            checkout.body.client_secret,
            nextLabel('leaver'),
            'pm_card_chargeDeclined',
          );
        },
      );
      continue;
    }
    const declinedFirst = roll < 0.3;
    const kind = declinedFirst ? 'checkout declined, then paid' : 'checkout paid';
    await lane.ops.run(kind, async () => {
      const withDiscount = lane.random() < 0.3;
      const checkout = await lane.seller(
        'POST',
        '/v1/checkouts/',
        {
          products: [lane.catalog.oneTimeProductId],
          ...(withDiscount && { discount_id: lane.catalog.discountId }),
        },
        { expect: [201] },
      );
      const label = nextLabel('buyer');
      const confirm = (card: string) => confirmAs(lane, checkout.body.client_secret, label, card);
      if (declinedFirst) {
        await confirm('pm_card_chargeDeclined');
        const failed = await settledCheckout(lane, checkout.body.id);
        if (failed.status !== 'failed') throw new Error(`declined checkout ${failed.status}`);
      }
      await confirm('pm_card_visa');
      const settled = await settledCheckout(lane, checkout.body.id);
      if (settled.status !== 'succeeded') {
        throw new Error(`checkout ${checkout.body.id} ${settled.status}`);
      }
      paid.push(await orderOf(lane, settled.customer_id, lane.catalog.oneTimeProductId));
    });
  }
}

/** The PaymentIntent a checkout's page is told to authenticate (`pi_…_secret_…`). */
const intentOfPage = (metadata: Record<string, string> | undefined) =>
  (metadata?.intent_client_secret ?? '').split('_secret_')[0] ?? '';

/** The checkout's page once it asks its buyer for the 3-D Secure step. */
async function awaitingAuthentication(lane: Lane, clientSecret: string) {
  const page = await until(
    `checkout ${clientSecret} asking for 3-D Secure`,
    () => lane.buyer('GET', `/v1/checkouts/client/${clientSecret}`),
    (answer) =>
      answer.status === 200 &&
      (answer.body.payment_processor_metadata?.intent_status === 'requires_action' ||
        !['confirmed', 'open'].includes(answer.body.status)),
    { intervalMs: 1000 },
  );
  if (page.body.payment_processor_metadata?.intent_status !== 'requires_action') {
    throw new Error(`checkout ${page.body.id} ${page.body.status} without asking for 3-D Secure`);
  }
  return intentOfPage(page.body.payment_processor_metadata);
}

/**
 * Buyers whose card asks for 3-D Secure on every charge: most complete the step (some telling
 * the page they did, as its return does), some fail it and pay with another card, some fail it
 * and leave, some never answer the challenge (the checkout gives up after its authentication
 * timeout). Each checkout goes to `checkouts` once its fate is known.
 */
export async function threeDSecureBuyers(
  lane: Lane,
  checkouts: ThreeDSecureCheckouts,
  paid: { id: string; net_amount: number }[],
  limit: number,
) {
  const stripe = stripeSimulatorControl(lane.stripeSimulatorUrl);
  const fates = [
    [0.55, 'authenticated'],
    [0.75, 'failed, then paid with another card'],
    [0.9, 'failed, then abandoned'],
    [1, 'challenge left undone'],
  ] as const;
  for (let index = 0; index < limit && !lane.over(); index++) {
    const roll = lane.random();
    const fate = (fates.find(([below]) => roll < below) ?? fates[0])[1];
    await lane.ops.run(`3-D Secure checkout ${fate}`, async () => {
      const checkout = await lane.seller(
        'POST',
        '/v1/checkouts/',
        { products: [lane.catalog.oneTimeProductId] },
        { expect: [201] },
      );
      const { id, client_secret: clientSecret } = checkout.body as {
        id: string;
        client_secret: string;
      };
      const label = nextLabel('3ds');
      await confirmAs(lane, clientSecret, label, 'pm_card_threeDSecure2Required');
      const abandoned = fate === 'failed, then abandoned' || fate === 'challenge left undone';
      // Whatever happens next, this buyer never pays: no order may come of it.
      if (abandoned) checkouts.abandoned.push(id);
      const paymentIntentId = await awaitingAuthentication(lane, clientSecret);
      if (fate === 'challenge left undone') return;
      await stripe.authenticatePayment(paymentIntentId, { succeed: fate === 'authenticated' });
      if (fate === 'authenticated' && lane.random() < 0.5) {
        // The page's word on its return from the challenge: the workflow asks Stripe at once.
        await lane.buyer('POST', `/v1/checkouts/client/${clientSecret}/authentication`, undefined, {
          expect: [200],
        });
      }
      const settled = await settledCheckout(lane, id);
      if (fate !== 'authenticated') {
        if (settled.status !== 'failed') throw new Error(`checkout ${id} ${settled.status}`);
        if (abandoned) return;
        await confirmAs(lane, clientSecret, label, 'pm_card_visa');
      }
      const outcome = fate === 'authenticated' ? settled : await settledCheckout(lane, id);
      if (outcome.status !== 'succeeded') throw new Error(`checkout ${id} ${outcome.status}`);
      checkouts.paid.push(id);
      paid.push(await orderOf(lane, outcome.customer_id, lane.catalog.oneTimeProductId));
    });
  }
}

/**
 * Finance refunding paid orders as they come: whole, in part, or twice at once in parts that
 * together exceed the order (one of the two must be refused).
 */
export async function refunds(lane: Lane, paid: { id: string; net_amount: number }[]) {
  while (!lane.over() || paid.length > 0) {
    const order = paid.shift();
    if (!order) {
      await sleep(500);
      continue;
    }
    const roll = lane.random();
    if (roll < 0.4) continue;
    const refund = (amount: number) =>
      lane.seller(
        'POST',
        '/v1/refunds/',
        { order_id: order.id, reason: 'customer_request', amount },
        { expect: [200, 201, 400, 422] },
      );
    if (roll < 0.6) {
      await lane.ops.run('refund in full', async () => {
        const answer = await refund(order.net_amount);
        if (answer.status >= 300) throw new Error(`refused: ${JSON.stringify(answer.body)}`);
      });
    } else if (roll < 0.8) {
      await lane.ops.run('refund in part', async () => {
        const answer = await refund(Math.max(1, Math.floor(order.net_amount / 3)));
        if (answer.status >= 300) throw new Error(`refused: ${JSON.stringify(answer.body)}`);
      });
    } else {
      await lane.ops.run('two refunds at once on one order', async () => {
        const part = Math.ceil(order.net_amount * 0.6);
        const answers = await Promise.all([refund(part), refund(part)]);
        const taken = answers.filter((answer) => answer.status < 300).length;
        // Both refused is possible only when neither could take the order's lock in time.
        if (taken > 1) throw new Error(`both refunds of ${part} on ${order.net_amount} taken`);
      });
    }
  }
}

/**
 * Subscribers on test clocks of their own: each subscribes to the first plan, some change plan
 * (invoiced at once, or prorated into the next renewal), then its clock advances month by month
 * through renewals; some renewals are declined (dunning) and finance retries them.
 */
export async function subscribers(lane: Lane, count: number, months: number) {
  const stripe = stripeSimulatorControl(lane.stripeSimulatorUrl);
  const [planA, planB] = lane.catalog.monthlyProductIds;
  const start = new Date('2027-01-15T12:00:00.000Z');
  const monthAfter = (at: Date, months: number) => {
    const next = new Date(at);
    next.setUTCMonth(next.getUTCMonth() + months);
    return next;
  };
  await Promise.all(
    Array.from({ length: count }, async () => {
      if (lane.over()) return;
      const subscription = await lane.ops.run('subscription started', async () => {
        const clock = await lane.seller(
          'POST',
          '/v1/test-clocks/',
          { frozen_time: start.toISOString() },
          { expect: [201] },
        );
        const label = nextLabel('subscriber');
        const customer = await lane.seller(
          'POST',
          '/v1/customers/',
          {
            email: `${label}@soak.example`,
            name: 'Soak Subscriber',
            test_clock_id: clock.body.id,
          },
          { expect: [201] },
        );
        const checkout = await lane.seller(
          'POST',
          '/v1/checkouts/',
          { products: [planA], customer_id: customer.body.id },
          { expect: [201] },
        );
        await confirmAs(lane, checkout.body.client_secret, label, 'pm_card_visa');
        const settled = await settledCheckout(lane, checkout.body.id);
        if (settled.status !== 'succeeded' || !settled.subscription_id) {
          throw new Error(`subscription checkout ${checkout.body.id} ${settled.status}`);
        }
        return { id: settled.subscription_id, clockId: clock.body.id as string };
      });
      if (!subscription) return;
      const roll = lane.random();
      if (roll < 0.5) {
        const proration = roll < 0.25 ? 'invoice' : 'prorate';
        await lane.ops.run(`plan change (${proration})`, async () => {
          // Sent again after a lost answer, the change may be refused as made already: what
          // counts is the subscription on the new plan.
          await lane.seller(
            'PATCH',
            `/v1/subscriptions/${subscription.id}`,
            { product_id: planB, proration_behavior: proration },
            { expect: [200, 400, 409, 422] },
          );
          await until(
            `subscription ${subscription.id} on the second plan`,
            () => lane.seller('GET', `/v1/subscriptions/${subscription.id}`),
            (answer) => answer.body?.product_id === planB,
            { timeoutMs: 60_000 },
          );
        });
      }
      // A network fault armed on /v1/payment_intents may take a renewal's confirmation before
      // the decline armed for it; the client's retry is a replay, never declined (Stripe answers
      // it as the first time), so that renewal pays and the decline waits for the next one.
      let declineArmed = false;
      for (let month = 1; month <= months && !lane.over(); month++) {
        const dunning = declineArmed || lane.random() < 0.25;
        const renewedFor = (answer: Answer) =>
          answer.body?.status === 'active' &&
          Date.parse(answer.body.current_period_start) >= monthAfter(start, month).getTime();
        const renewed = await lane.ops.run(
          dunning ? 'renewal declined, retried by finance' : 'renewal',
          async () => {
            if (dunning && !declineArmed) {
              await stripe.declinePayments({
                bodyIncludes: subscription.id,
                declineCode: 'insufficient_funds',
                count: 1,
              });
              declineArmed = true;
            }
            await advance(lane, subscription.clockId, monthAfter(start, month));
            if (dunning) {
              const declined = await until(
                `subscription ${subscription.id} past due (or renewed)`,
                () => lane.seller('GET', `/v1/subscriptions/${subscription.id}`),
                (answer) => answer.body?.status === 'past_due' || renewedFor(answer),
              );
              if (declined.body.status !== 'past_due') {
                await lane.ops.run('renewal decline pre-empted by a network fault', async () => {});
                return true;
              }
              declineArmed = false;
              // Sent again after a lost answer, the retry may find the renewal paid already.
              await lane.seller(
                'POST',
                `/v1/subscriptions/${subscription.id}/dunning/retry`,
                undefined,
                { expect: [200, 409, 422] },
              );
            }
            await until(
              `subscription ${subscription.id} renewed for month ${month}`,
              () => lane.seller('GET', `/v1/subscriptions/${subscription.id}`),
              renewedFor,
            );
            return true;
          },
        );
        if (!renewed) return;
      }
    }),
  );
}

async function advance(lane: Lane, clockId: string, to: Date) {
  // Sent again after a lost answer, the advance may be refused as done or under way: what
  // counts is the clock ready at that time.
  await lane.seller(
    'POST',
    `/v1/test-clocks/${clockId}/advance`,
    { frozen_time: to.toISOString() },
    { expect: [200, 400, 409, 422] },
  );
  await until(
    `test clock ${clockId} ready at ${to.toISOString()}`,
    () => lane.seller('GET', `/v1/test-clocks/${clockId}`),
    (answer) =>
      answer.body?.status === 'ready' && Date.parse(answer.body.frozen_time) === to.getTime(),
  );
}

/**
 * The seller's code reporting usage in batches of 20 events with ids of its own; a batch whose
 * answer was lost is sent again whole, and some are sent twice on purpose. Answers the external
 * ids the API acknowledged.
 */
export async function usage(lane: Lane, batches: number): Promise<string[]> {
  const customers: string[] = [];
  for (let index = 0; index < 3; index++) {
    const customer = await lane.ops.run('usage customer created', async () => {
      const label = nextLabel('user');
      const answer = await lane.seller(
        'POST',
        '/v1/customers/',
        { email: `${label}@soak.example`, external_id: label },
        { expect: [201] },
      );
      return answer.body.id as string;
    });
    if (customer) customers.push(customer);
  }
  const acknowledged: string[] = [];
  if (customers.length === 0) return acknowledged;
  for (let batch = 0; batch < batches && !lane.over(); batch++) {
    const events = Array.from({ length: 20 }, (_, index) => ({
      name: index % 5 === 4 ? 'soak.other' : 'soak.call',
      customer_id: customers[index % customers.length],
      external_id: `soak-${batch}-${index}`,
      metadata: { units: 1 + (index % 3) },
    }));
    const sent = await lane.ops.run('usage batch ingested', async () => {
      await lane.seller('POST', '/v1/events/ingest', { events }, { expect: [200] });
      return true;
    });
    if (!sent) continue;
    acknowledged.push(...events.map((event) => event.external_id));
    if (lane.random() < 0.2) {
      await lane.ops.run('usage batch sent again', async () => {
        const again = await lane.seller('POST', '/v1/events/ingest', { events }, { expect: [200] });
        if (again.body.inserted !== undefined && again.body.inserted !== 0) {
          throw new Error(`a batch sent again inserted ${again.body.inserted} events`);
        }
      });
    }
    await sleep(200);
  }
  return acknowledged;
}

/** The seller editing the catalog meanwhile: renaming products, adding some. */
export async function catalogEdits(lane: Lane) {
  for (let index = 0; !lane.over(); index++) {
    if (index % 3 === 0) {
      await lane.ops.run('product created', async () => {
        await lane.seller(
          'POST',
          '/v1/products/',
          { name: `Soak extra ${index}`, prices: [{ amount_type: 'fixed', price_amount: 500 }] },
          { expect: [201] },
        );
      });
    } else {
      await lane.ops.run('product renamed', async () => {
        await lane.seller(
          'PATCH',
          `/v1/products/${lane.catalog.oneTimeProductId}`,
          { name: `Soak ebook, edition ${index}` },
          { expect: [200] },
        );
      });
    }
    await sleep(1500);
  }
}

const invitationPassword = 'soak invitee password';

/** Someone in a browser of their own, signed up (a sign-up whose answer was lost signs in). */
async function signedUp(lane: Lane, email: string) {
  const browser = apiClient(lane.apiUrl, null, { cookies: new CookieJar() });
  const signUp = await browser(
    'POST',
    '/api/auth/sign-up/email',
    { email, password: invitationPassword, name: 'Soak member' },
    { expect: [200, 400, 422] },
  );
  if (signUp.status !== 200) {
    await browser(
      'POST',
      '/api/auth/sign-in/email',
      { email, password: invitationPassword },
      { expect: [200] },
    );
  }
  return browser;
}

/** The organizations `browser`'s user belongs to. */
async function organizationsOf(browser: Call) {
  const listed = await browser('GET', '/api/auth/organization/list', undefined, {
    expect: [200],
  });
  return listed.body as { id: string; slug: string }[];
}

/** The token of the mailed invitation link (the invitation workflow's mail) for `invitationId`. */
async function mailedInvitationToken(lane: Lane, email: string, invitationId: string) {
  const token = await until(
    `the invitation mail of ${invitationId}`,
    async () => {
      for (const mail of await readCapturedMails(lane.mailDirectory)) {
        if (!mail.to.includes(email)) continue;
        const link = extractLinks(mail).find((found) => found.includes(invitationId));
        if (link) return new URL(link).searchParams.get('token');
      }
      return null;
    },
    (found) => Boolean(found),
    { intervalMs: 1000 },
  );
  return token ?? '';
}

/** Invitations sent by one team's owner: fewer than its membership limit of 100. */
const invitationsPerTeam = 80;

/** A new owner (signed up through /api/auth) and the organization they made. */
function teamOwner(lane: Lane) {
  return lane.ops.run('invitation owner signed up, organization made', async () => {
    const browser = await signedUp(lane, `${nextLabel('owner')}@soak.example`);
    const slug = nextLabel('soak-team');
    // Sent again after a lost answer, the slug is taken by the first: the owner's list has it.
    await browser(
      'POST',
      '/api/auth/organization/create',
      { name: 'Soak team', slug },
      { expect: [200, 400] },
    );
    const organization = (await organizationsOf(browser)).find((found) => found.slug === slug);
    if (!organization) throw new Error(`organization ${slug} not made`);
    return { browser, organizationId: organization.id };
  });
}

/**
 * Owners of organizations of their own (a new one every `invitationsPerTeam`) inviting members by
 * email: the invitation workflow mails each a link, and the invitee, signed up meanwhile,
 * accepts with its token; some invitations are canceled first, some left to expire (the
 * stack's invitations live 75 s), and accepting those must be refused.
 */
export async function invitations(lane: Lane, fates: InvitationFates, count: number) {
  let owner: Awaited<ReturnType<typeof teamOwner>>;
  const waiting: Promise<unknown>[] = [];
  for (let index = 0; index < count && !lane.over(); index++) {
    // A new team before one reaches the membership limit (100 members, as in Better Auth).
    if (index % invitationsPerTeam === 0) owner = await teamOwner(lane);
    if (!owner) return;
    const team = owner;
    const roll = lane.random();
    const fate = roll < 0.6 ? 'accepted' : roll < 0.8 ? 'canceled' : 'expired';
    const operation = lane.ops.run(`invitation ${fate}`, async () => {
      const email = `${nextLabel('invitee')}@soak.example`;
      const invitee = await signedUp(lane, email);
      const invited = await team.browser(
        'POST',
        '/api/auth/organization/invite-member',
        { email, role: 'member', organizationId: team.organizationId },
        { expect: [200, 400] },
      );
      // Sent again after a lost answer, the address is invited already: the pending one is it.
      const invitation =
        invited.status === 200
          ? (invited.body as { id: string; expiresAt: string })
          : (
              await team.browser(
                'GET',
                `/api/auth/organization/list-invitations?organizationId=${team.organizationId}`,
                undefined,
                { expect: [200] },
              )
            ).body.find((found: Json) => found.email === email && found.status === 'pending');
      if (!invitation)
        throw new Error(`no invitation to ${email}: ${JSON.stringify(invited.body)}`);
      const token = await mailedInvitationToken(lane, email, invitation.id);
      if (fate === 'canceled') {
        await team.browser(
          'POST',
          '/api/auth/organization/cancel-invitation',
          { invitationId: invitation.id },
          { expect: [200] },
        );
        fates.canceled.push(invitation.id);
      } else if (fate === 'expired') {
        await sleep(Math.max(0, Date.parse(invitation.expiresAt) - Date.now()) + 2000);
        fates.expired.push(invitation.id);
      }
      const accepted = await invitee(
        'POST',
        '/api/auth/organization/accept-invitation',
        { invitationId: invitation.id, token },
        { expect: [200, 400, 403] },
      );
      if (fate !== 'accepted') {
        if (accepted.status === 200) throw new Error(`invitation ${invitation.id} accepted`);
        return;
      }
      // Refused, it may be a retry whose first attempt went through: the member is what counts.
      if (accepted.status !== 200) {
        const organizations = await organizationsOf(invitee);
        if (!organizations.some((found) => found.id === team.organizationId)) {
          throw new Error(`accept refused: ${JSON.stringify(accepted.body)}`);
        }
      }
      fates.accepted.push(invitation.id);
    });
    // The ones left to expire wait out their lifetime while the next are sent.
    if (fate === 'expired') waiting.push(operation);
    else await operation;
    await sleep(500);
  }
  await Promise.all(waiting);
}
