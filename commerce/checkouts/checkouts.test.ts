import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Polar } from '@polar-sh/sdk';
import { ExpiredCheckoutError } from '@polar-sh/sdk/models/errors/expiredcheckouterror.js';
import { HTTPValidationError } from '@polar-sh/sdk/models/errors/httpvalidationerror.js';
import { NotOpenCheckout } from '@polar-sh/sdk/models/errors/notopencheckout.js';
import { PaymentNotReady } from '@polar-sh/sdk/models/errors/paymentnotready.js';
import { ResourceNotFound } from '@polar-sh/sdk/models/errors/resourcenotfound.js';
import {
  Checkout,
  Customer,
  Discount,
  DiscountProduct,
  DiscountRedemption,
  OutboxEvent,
  Subscription,
} from '../../db/entities/index.ts';
import { workflowIds } from '../../processes/workflow-ids.ts';
import {
  callV1,
  createSeller,
  polarClient,
  type Seller,
  startCommerceApi,
  type TestApi,
} from '../testing.ts';
import { confirmCheckout } from './confirm.ts';
import { clientSecretPrefix, createCheckout } from './create.ts';
import { expireCheckout } from './outcomes.ts';
import { checkoutCreateInput } from './schemas.ts';

/** The 422 locations of a refused SDK call. */
async function refusedAt(call: Promise<unknown>): Promise<(string | number)[][]> {
  try {
    await call;
  } catch (error) {
    assert.ok(error instanceof HTTPValidationError, String(error));
    return (error.detail ?? []).map((issue) => issue.loc);
  }
  assert.fail('expected a 422');
}

/** The `error` and locations a confirm refused with (it throws API errors, as the activity sees them). */
async function confirmRefusal(call: Promise<unknown>) {
  try {
    await call;
  } catch (error) {
    const refusal = error as { code?: string; issues?: { loc: (string | number)[] }[] };
    return { code: refusal.code, locs: (refusal.issues ?? []).map((issue) => issue.loc) };
  }
  assert.fail('expected a refusal');
}

const _usAddress = {
  line1: '1 Main St',
  city: 'Springfield',
  postalCode: '62701',
  state: 'IL',
  country: 'US',
} as const;

describe('checkouts (/v1/checkouts)', () => {
  let api: TestApi;
  let seller: Seller;
  let other: Seller;
  /** The buyer's page: no credentials at all. */
  let buyer: Polar;
  let ebookId: string;
  let ebookPriceId: string;
  let tipJarId: string;
  let freebieId: string;
  let planId: string;
  let archivedId: string;
  let theirProductId: string;

  const em = () => api.orm.em.fork();
  const publicUrl = () => api.config.api.publicUrl;
  const stored = (id: string) => em().findOneOrFail(Checkout, id);
  const eventsOf = async (checkoutId: string) => {
    const events = await em().find(
      OutboxEvent,
      { type: { $like: 'checkout.%' } },
      { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] },
    );
    return events.filter((event) => event.data.id === checkoutId).map((event) => event.type);
  };

  async function insertDiscount(
    organizationId: string,
    fields: Partial<{
      code: string;
      basisPoints: number;
      amount: number;
      endsAt: Date;
      maxRedemptions: number;
      redemptionsCount: number;
      products: string[];
    }> = {},
  ) {
    const manager = em();
    const discount = manager.create(Discount, {
      organization: organizationId,
      name: 'Launch',
      code: fields.code ?? null,
      type: fields.amount === undefined ? 'percentage' : 'fixed',
      basisPoints: fields.amount === undefined ? (fields.basisPoints ?? 2500) : null,
      amount: fields.amount ?? null,
      currency: fields.amount === undefined ? null : 'usd',
      duration: 'once',
      endsAt: fields.endsAt ?? null,
      maxRedemptions: fields.maxRedemptions ?? null,
      redemptionsCount: fields.redemptionsCount ?? 0,
    });
    for (const product of fields.products ?? [])
      manager.create(DiscountProduct, { discount, product });
    await manager.flush();
    return discount;
  }

  const uniqueCode = () => `CODE${randomUUID().replaceAll('-', '').slice(0, 10)}`;

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
    other = await createSeller(api);
    buyer = polarClient(api.url);
    const ebook = await seller.polar.products.create({
      name: 'Ebook',
      prices: [{ amountType: 'fixed', priceAmount: 2500 }],
    });
    ebookId = ebook.id;
    ebookPriceId = ebook.prices[0]?.id as string;
    tipJarId = (
      await seller.polar.products.create({
        name: 'Tip jar',
        prices: [
          { amountType: 'custom', minimumAmount: 500, maximumAmount: 5000, presetAmount: 1500 },
        ],
      })
    ).id;
    freebieId = (
      await seller.polar.products.create({ name: 'Freebie', prices: [{ amountType: 'free' }] })
    ).id;
    planId = (
      await seller.polar.products.create({
        name: 'Pro plan',
        recurringInterval: 'month',
        prices: [{ amountType: 'fixed', priceAmount: 900 }],
      })
    ).id;
    archivedId = (
      await seller.polar.products.create({ name: 'Old edition', prices: [{ amountType: 'free' }] })
    ).id;
    await seller.polar.products.update({ id: archivedId, productUpdate: { isArchived: true } });
    theirProductId = (
      await other.polar.products.create({ name: 'Theirs', prices: [{ amountType: 'free' }] })
    ).id;
  });
  after(() => api.close());

  describe('created by the seller', () => {
    it('sells a fixed price: amounts, flags, links, expiry, and checkout.created', async () => {
      const before = Date.now();
      const checkout = await seller.polar.checkouts.create({
        products: [ebookId, tipJarId],
        metadata: { campaign: 'spring' },
      });
      assert.equal(checkout.status, 'open');
      assert.ok(checkout.clientSecret.startsWith(clientSecretPrefix));
      assert.equal(checkout.url, `${api.config.api.publicUrl}/checkout/${checkout.clientSecret}`);
      assert.equal(checkout.successUrl, `${checkout.url}/confirmation`);
      assert.deepEqual(
        [checkout.productId, checkout.productPriceId, checkout.product.name],
        [ebookId, ebookPriceId, 'Ebook'],
      );
      assert.deepEqual(
        checkout.products.map((product) => product.id),
        [ebookId, tipJarId],
      );
      assert.deepEqual(
        [checkout.amount, checkout.discountAmount, checkout.netAmount, checkout.taxAmount],
        [2500, 0, 2500, null],
      );
      assert.equal(checkout.totalAmount, 2500);
      assert.equal(checkout.currency, 'usd');
      assert.equal(checkout.isPaymentRequired, true);
      assert.equal(checkout.isPaymentSetupRequired, false);
      assert.equal(checkout.isPaymentFormRequired, true);
      assert.equal(checkout.isFreeProductPrice, false);
      assert.equal(checkout.isDiscountApplicable, true);
      assert.deepEqual(checkout.metadata, { campaign: 'spring' });
      const lifetime = checkout.expiresAt.getTime() - before;
      assert.ok(lifetime > 3_590_000 && lifetime <= 3_601_000, String(lifetime));
      assert.deepEqual(await eventsOf(checkout.id), ['checkout.created']);
      const workflow = api.temporal.workflow.getHandle(workflowIds.checkout(checkout.id));
      assert.equal((await workflow.describe()).status.name, 'RUNNING');
    });

    it('takes a pay-what-you-want amount within the bounds, the preset by default', async () => {
      const preset = await seller.polar.checkouts.create({ products: [tipJarId] });
      assert.equal(preset.amount, 1500);
      const chosen = await seller.polar.checkouts.create({ products: [tipJarId], amount: 4200 });
      assert.deepEqual([chosen.amount, chosen.totalAmount], [4200, 4200]);

      const count = await em().count(Checkout, { organization: seller.organizationId });
      for (const amount of [499, 5001]) {
        const locs = await refusedAt(
          seller.polar.checkouts.create({ products: [tipJarId], amount }),
        );
        assert.deepEqual(locs, [['body', 'amount']]);
      }
      assert.equal(await em().count(Checkout, { organization: seller.organizationId }), count);
    });

    it('gives a free product away without a payment form', async () => {
      const checkout = await seller.polar.checkouts.create({ products: [freebieId] });
      assert.deepEqual([checkout.amount, checkout.totalAmount], [0, 0]);
      assert.equal(checkout.isFreeProductPrice, true);
      assert.equal(checkout.isPaymentRequired, false);
      assert.equal(checkout.isPaymentFormRequired, false);
      assert.equal(checkout.isDiscountApplicable, false);
    });

    it('sets up a payment method for a subscription, and takes nothing now during a trial', async () => {
      const plain = await seller.polar.checkouts.create({ products: [planId] });
      assert.equal(plain.isPaymentRequired, true);
      assert.equal(plain.isPaymentSetupRequired, true);
      const trial = await seller.polar.checkouts.create({
        products: [planId],
        trialInterval: 'day',
        trialIntervalCount: 14,
      });
      assert.equal(trial.activeTrialInterval, 'day');
      assert.equal(trial.activeTrialIntervalCount, 14);
      assert.ok(trial.trialEnd && trial.trialEnd.getTime() > Date.now() + 13 * 86_400_000);
      assert.equal(trial.isPaymentRequired, false);
      assert.equal(trial.isPaymentFormRequired, true);

      const locs = await refusedAt(
        seller.polar.checkouts.create({
          products: [ebookId],
          trialInterval: 'day',
          trialIntervalCount: 3,
        }),
      );
      assert.deepEqual(locs, [['body', 'trial_interval']]);
    });

    it('applies a discount and fills the checkout id into the success URL', async () => {
      const discount = await insertDiscount(seller.organizationId, { basisPoints: 1000 });
      const checkout = await seller.polar.checkouts.create({
        products: [ebookId],
        discountId: discount.id,
        successUrl: 'https://shop.example/thanks?checkout={CHECKOUT_ID}',
        customerEmail: 'ada@example.com',
        customerBillingAddress: { country: 'US', state: 'CA' },
      });
      assert.deepEqual(
        [checkout.amount, checkout.discountAmount, checkout.netAmount, checkout.totalAmount],
        [2500, 250, 2250, 2250],
      );
      assert.equal(checkout.discountId, discount.id);
      assert.equal(checkout.discount?.id, discount.id);
      assert.equal(checkout.successUrl, `https://shop.example/thanks?checkout=${checkout.id}`);
      assert.equal(checkout.customerBillingAddress?.state, 'US-CA');
    });

    it('refuses products it does not sell, with nothing written', async () => {
      const count = await em().count(Checkout, {});
      const locs = await refusedAt(
        seller.polar.checkouts.create({
          products: [ebookId, theirProductId, archivedId, randomUUID()],
        }),
      );
      assert.deepEqual(locs, [
        ['body', 'products', 1],
        ['body', 'products', 2],
        ['body', 'products', 3],
      ]);
      const theirDiscount = await insertDiscount(other.organizationId);
      const refused = await refusedAt(
        seller.polar.checkouts.create({ products: [ebookId], discountId: theirDiscount.id }),
      );
      assert.deepEqual(refused, [['body', 'discount_id']]);
      assert.equal(await em().count(Checkout, {}), count);
    });

    it('takes the deprecated product_id and product_price_id as Polar still does', async () => {
      // SDK 0.35.4 sends only `products`: the older forms go raw, the SDK reads what they made.
      const create = (body: Record<string, unknown>) =>
        callV1(api, seller.token, 'POST', '/v1/checkouts/', body);
      const byProduct = await create({ product_id: tipJarId });
      assert.equal(byProduct.status, 201, JSON.stringify(byProduct.body));
      const read = await seller.polar.checkouts.get({ id: byProduct.body.id });
      assert.deepEqual(
        [read.productId, read.products.map((product) => product.id), read.amount],
        [tipJarId, [tipJarId], 1500],
      );
      const tipJarPriceId = read.productPriceId;

      const byPrice = await create({ product_price_id: ebookPriceId, metadata: { via: 'price' } });
      assert.equal(byPrice.status, 201, JSON.stringify(byPrice.body));
      const priced = await seller.polar.checkouts.get({ id: byPrice.body.id });
      assert.deepEqual(
        [priced.productId, priced.productPriceId, priced.products.length, priced.totalAmount],
        [ebookId, ebookPriceId, 1, 2500],
      );
      assert.deepEqual(priced.metadata, { via: 'price' });
      assert.deepEqual(await eventsOf(priced.id), ['checkout.created']);

      // Unknown, another organization's, archived: refused at the field, nothing written.
      const count = await em().count(Checkout, {});
      const theirPriceId = (await other.polar.products.get({ id: theirProductId })).prices[0]?.id;
      const archivedPriceId = (await seller.polar.products.get({ id: archivedId })).prices[0]?.id;
      for (const [body, loc, message] of [
        [{ product_id: theirProductId }, 'product_id', /does not exist/],
        [{ product_id: randomUUID() }, 'product_id', /does not exist/],
        [{ product_id: archivedId }, 'product_id', /archived/],
        [{ product_price_id: theirPriceId }, 'product_price_id', /does not exist/],
        [{ product_price_id: randomUUID() }, 'product_price_id', /does not exist/],
        [{ product_price_id: archivedPriceId }, 'product_price_id', /archived/],
        [{ products: [ebookId], product_id: ebookId }, 'products', /one of/],
        [{ product_id: tipJarId, product_price_id: tipJarPriceId }, 'products', /one of/],
        [{}, 'products', /one of/],
      ] as const) {
        const refused = await create(body);
        assert.equal(refused.status, 422, JSON.stringify(body));
        assert.deepEqual(refused.body.detail[0].loc, ['body', loc], JSON.stringify(body));
        assert.match(refused.body.detail[0].msg, message, JSON.stringify(body));
      }
      assert.equal(await em().count(Checkout, {}), count);
    });

    it('writes nothing when its workflow cannot be started', async () => {
      const count = await em().count(Checkout, {});
      const events = await em().count(OutboxEvent, { type: 'checkout.created' });
      await assert.rejects(
        createCheckout(
          em(),
          seller.organizationId,
          checkoutCreateInput.parse({ products: [ebookId] }),
          {
            publicUrl: api.config.api.publicUrl,
            ttlSeconds: 3600,
            startWorkflow: () => Promise.reject(new Error('Temporal is unreachable')),
          },
        ),
        /Temporal is unreachable/,
      );
      assert.equal(await em().count(Checkout, {}), count);
      assert.equal(await em().count(OutboxEvent, { type: 'checkout.created' }), events);
    });

    it('refuses a subscription to a customer who already subscribes', async () => {
      const customer = await seller.polar.customers.create({
        email: `sub-${randomUUID()}@example.com`,
      });
      const manager = em();
      manager.create(Subscription, {
        organization: seller.organizationId,
        customer: customer.id,
        product: planId,
        status: 'active',
        amount: 900,
        currency: 'usd',
        recurringInterval: 'month',
        currentPeriodStart: new Date(),
      });
      await manager.flush();
      const refused = await callV1(api, seller.token, 'POST', '/v1/checkouts/', {
        products: [planId],
        customer_id: customer.id,
      });
      assert.equal(refused.status, 403);
      assert.equal(refused.body.error, 'AlreadyActiveSubscriptionError');
      // One-time products stay on sale to them.
      const ebook = await seller.polar.checkouts.create({
        products: [ebookId],
        customerId: customer.id,
      });
      assert.equal(ebook.customerId, customer.id);
      assert.equal(ebook.customerEmail, customer.email);
    });
  });

  describe('read and changed by the seller', () => {
    it('lists with filters, gets, and updates an open checkout', async () => {
      const email = `list-${randomUUID()}@example.com`;
      const mine = await seller.polar.checkouts.create({
        products: [freebieId, ebookId],
        customerEmail: email,
      });
      const page = await seller.polar.checkouts.list({ query: email.slice(0, 20) });
      assert.deepEqual(
        page.result.items.map((checkout) => checkout.id),
        [mine.id],
      );
      const byProduct = await seller.polar.checkouts.list({ productId: freebieId, limit: 100 });
      assert.ok(byProduct.result.items.every((checkout) => checkout.productId === freebieId));
      assert.ok(byProduct.result.items.some((checkout) => checkout.id === mine.id));
      const expired = await seller.polar.checkouts.list({ status: ['expired'], limit: 100 });
      assert.ok(expired.result.items.every((checkout) => checkout.status === 'expired'));

      const read = await seller.polar.checkouts.get({ id: mine.id });
      assert.equal(read.customerEmail, email);
      const updated = await seller.polar.checkouts.update({
        id: mine.id,
        checkoutUpdate: { metadata: { source: 'api' }, productId: ebookId, customerName: 'Ada' },
      });
      assert.deepEqual(updated.metadata, { source: 'api' });
      assert.deepEqual(
        [updated.productId, updated.amount, updated.customerName],
        [ebookId, 2500, 'Ada'],
      );
      assert.ok(updated.modifiedAt);
      assert.deepEqual(await eventsOf(mine.id), ['checkout.created', 'checkout.updated']);
    });

    it('refuses to change a checkout that is no longer open', async () => {
      const checkout = await seller.polar.checkouts.create({ products: [freebieId] });
      await em().nativeUpdate(Checkout, { id: checkout.id }, { status: 'succeeded' });
      await assert.rejects(
        seller.polar.checkouts.update({
          id: checkout.id,
          checkoutUpdate: { customerName: 'Late' },
        }),
        (error) => error instanceof NotOpenCheckout,
      );
      assert.equal((await stored(checkout.id)).customerName, null);
    });

    it('keeps every organization to its own checkouts', async () => {
      const checkout = await seller.polar.checkouts.create({ products: [ebookId] });
      await assert.rejects(other.polar.checkouts.get({ id: checkout.id }), ResourceNotFound);
      await assert.rejects(
        other.polar.checkouts.update({ id: checkout.id, checkoutUpdate: { customerName: 'Eve' } }),
        ResourceNotFound,
      );
      const theirs = await other.polar.checkouts.list({ limit: 100 });
      assert.ok(theirs.result.items.every((item) => item.id !== checkout.id));
      const filtered = await seller.polar.checkouts.list({ organizationId: other.organizationId });
      assert.equal(filtered.result.pagination.totalCount, 0);
      assert.equal((await stored(checkout.id)).customerName, null);
    });
  });

  describe('on the buyer page, by client secret', () => {
    it('reads and updates without credentials; billing fields follow country and business', async () => {
      const created = await seller.polar.checkouts.create({ products: [ebookId, tipJarId] });
      const clientSecret = created.clientSecret;
      const read = await buyer.checkouts.clientGet({ clientSecret });
      assert.equal(read.id, created.id);
      assert.equal(read.organization.id, seller.organizationId);
      assert.equal(read.billingAddressFields.line1, 'disabled');

      const update = (
        checkoutUpdatePublic: Parameters<
          Polar['checkouts']['clientUpdate']
        >[0]['checkoutUpdatePublic'],
      ) => buyer.checkouts.clientUpdate({ clientSecret, checkoutUpdatePublic });
      const us = await update({ customerBillingAddress: { country: 'US' } });
      assert.deepEqual(us.billingAddressFields, {
        country: 'required',
        state: 'required',
        city: 'required',
        postalCode: 'required',
        line1: 'required',
        line2: 'optional',
      });
      const ca = await update({ customerBillingAddress: { country: 'CA' } });
      assert.deepEqual(
        [ca.billingAddressFields.state, ca.billingAddressFields.line1],
        ['required', 'disabled'],
      );
      const fr = await update({ customerBillingAddress: { country: 'FR' } });
      assert.equal(fr.billingAddressFields.state, 'disabled');
      const business = await update({ isBusinessCustomer: true, customerTaxId: 'FR61954506077' });
      assert.equal(business.billingAddressFields.line1, 'required');
      assert.equal(business.customerTaxId, 'FR61954506077');
      const locs = await refusedAt(update({ customerTaxId: 'not-a-number' }));
      assert.deepEqual(locs, [['body', 'customer_tax_id']]);
      const tipJar = await update({ productId: tipJarId, amount: 700 });
      assert.deepEqual([tipJar.productId, tipJar.amount, tipJar.totalAmount], [tipJarId, 700, 700]);
      const before = await stored(created.id);
      assert.deepEqual(await refusedAt(update({ amount: 9 })), [['body', 'amount']]);
      const after = await stored(created.id);
      assert.deepEqual([after.amount, after.modifiedAt], [700, before.modifiedAt]);
    });

    it('answers 404 for an unknown secret and 410 once expired', async () => {
      await assert.rejects(
        buyer.checkouts.clientGet({ clientSecret: `${clientSecretPrefix}unknown` }),
        ResourceNotFound,
      );
      const checkout = await seller.polar.checkouts.create({ products: [ebookId] });
      await em().nativeUpdate(
        Checkout,
        { id: checkout.id },
        { expiresAt: new Date(Date.now() - 1000) },
      );
      await assert.rejects(
        buyer.checkouts.clientGet({ clientSecret: checkout.clientSecret }),
        ExpiredCheckoutError,
      );
      await assert.rejects(
        buyer.checkouts.clientUpdate({
          clientSecret: checkout.clientSecret,
          checkoutUpdatePublic: { customerName: 'Late' },
        }),
        ExpiredCheckoutError,
      );
      await assert.rejects(
        buyer.checkouts.clientConfirm({
          clientSecret: checkout.clientSecret,
          checkoutConfirmStripe: { customerEmail: 'late@example.com' },
        }),
        ExpiredCheckoutError,
      );
      // The seller still reads it, as expired; the workflow's sweep makes it so for good.
      assert.equal((await seller.polar.checkouts.get({ id: checkout.id })).status, 'expired');
      await expireCheckout(em(), checkout.id, publicUrl());
      assert.equal((await stored(checkout.id)).status, 'expired');
      assert.deepEqual(await eventsOf(checkout.id), ['checkout.created', 'checkout.updated']);
    });

    it('applies a valid discount code and refuses the others at discount_code', async () => {
      const good = await insertDiscount(seller.organizationId, { code: uniqueCode(), amount: 500 });
      const ended = await insertDiscount(seller.organizationId, {
        code: uniqueCode(),
        endsAt: new Date(Date.now() - 60_000),
      });
      const exhausted = await insertDiscount(seller.organizationId, {
        code: uniqueCode(),
        maxRedemptions: 2,
        redemptionsCount: 2,
      });
      const elsewhere = await insertDiscount(seller.organizationId, {
        code: uniqueCode(),
        products: [planId],
      });
      const theirs = await insertDiscount(other.organizationId, { code: uniqueCode() });
      const checkout = await seller.polar.checkouts.create({ products: [ebookId] });
      const { clientSecret } = checkout;
      for (const code of ['NOSUCHCODE', ended.code, exhausted.code, elsewhere.code, theirs.code]) {
        const locs = await refusedAt(
          buyer.checkouts.clientUpdate({
            clientSecret,
            checkoutUpdatePublic: { discountCode: code as string },
          }),
        );
        assert.deepEqual(locs, [['body', 'discount_code']], String(code));
      }
      const untouched = await stored(checkout.id);
      assert.deepEqual([untouched.discount, untouched.modifiedAt], [null, null]);

      const discounted = await buyer.checkouts.clientUpdate({
        clientSecret,
        checkoutUpdatePublic: { discountCode: (good.code as string).toLowerCase() },
      });
      assert.deepEqual(
        [discounted.discountId, discounted.discountAmount, discounted.totalAmount],
        [good.id, 500, 2000],
      );
      // An empty code takes the discount off again.
      const removed = await buyer.checkouts.clientUpdate({
        clientSecret,
        checkoutUpdatePublic: { discountCode: null },
      });
      assert.equal(removed.discountId, null);
    });
  });

  describe('confirm', () => {
    it('requires the email, and for a payment the name, address and confirmation token', async () => {
      const checkout = await seller.polar.checkouts.create({ products: [ebookId] });
      const confirm = (body: Record<string, unknown>) =>
        confirmCheckout(em(), checkout.id, body, randomUUID(), publicUrl());
      const bare = await confirmRefusal(confirm({}));
      assert.deepEqual(bare.locs, [
        ['body', 'customer_email'],
        ['body', 'customer_name'],
        ['body', 'customer_billing_address'],
        ['body', 'confirmation_token_id'],
      ]);
      const partial = await confirmRefusal(
        confirm({
          customer_email: 'ada@example.com',
          customer_name: 'Ada',
          customer_billing_address: { country: 'US', line1: '1 Main St' },
        }),
      );
      assert.deepEqual(partial.locs, [
        ['body', 'customer_billing_address', 'state'],
        ['body', 'customer_billing_address', 'city'],
        ['body', 'customer_billing_address', 'postal_code'],
        ['body', 'confirmation_token_id'],
      ]);
      const untouched = await stored(checkout.id);
      assert.deepEqual(
        [untouched.status, untouched.customerEmail, untouched.customer, untouched.modifiedAt],
        ['open', null, null, null],
      );
      assert.equal(
        await em().count(Customer, {
          email: 'ada@example.com',
          organization: seller.organizationId,
        }),
        0,
      );
    });

    it('refuses required custom fields left empty', async () => {
      const field = await seller.polar.customFields.create({
        type: 'text',
        slug: `company-${randomUUID().slice(0, 8)}`,
        name: 'Company',
        properties: {},
      });
      const product = await seller.polar.products.create({
        name: 'Workshop seat',
        prices: [{ amountType: 'free' }],
        attachedCustomFields: [{ customFieldId: field.id, required: true }],
      });
      const checkout = await seller.polar.checkouts.create({ products: [product.id] });
      assert.equal(checkout.attachedCustomFields[0]?.customFieldId, field.id);
      const refused = await confirmRefusal(
        confirmCheckout(
          em(),
          checkout.id,
          { customer_email: 'bo@example.com' },
          randomUUID(),
          publicUrl(),
        ),
      );
      assert.deepEqual(refused.locs, [['body', 'custom_field_data', field.slug]]);
    });

    it('confirms a free checkout through the SDK, answering confirmed with a session token', async () => {
      const email = `free-${randomUUID()}@example.com`;
      const checkout = await seller.polar.checkouts.create({ products: [freebieId] });
      // A refusal comes back from the workflow as the API error, and leaves the checkout open.
      const locs = await refusedAt(
        buyer.checkouts.clientConfirm({
          clientSecret: checkout.clientSecret,
          checkoutConfirmStripe: { customerName: 'Grace' },
        }),
      );
      assert.deepEqual(locs, [['body', 'customer_email']]);
      assert.deepEqual(
        [(await stored(checkout.id)).customerName, (await stored(checkout.id)).status],
        [null, 'open'],
      );
      const confirmed = await buyer.checkouts.clientConfirm({
        clientSecret: checkout.clientSecret,
        checkoutConfirmStripe: { customerEmail: email, customerName: 'Grace' },
      });
      assert.equal(confirmed.status, 'confirmed');
      assert.ok(confirmed.customerSessionToken.startsWith('polar_cst_'));
      const customer = await em().findOneOrFail(Customer, {
        organization: seller.organizationId,
        email,
      });
      assert.equal(confirmed.customerId, customer.id);
      assert.equal(customer.name, 'Grace');
      const created = await em().count(OutboxEvent, {
        type: 'customer.created',
        organization: seller.organizationId,
      });
      assert.ok(created >= 1);
      // Confirming it again is refused.
      await assert.rejects(
        buyer.checkouts.clientConfirm({
          clientSecret: checkout.clientSecret,
          checkoutConfirmStripe: { customerEmail: email },
        }),
        (error) => error instanceof NotOpenCheckout,
      );
    });

    it('refuses to take a payment for an organization not ready for it, when sellers must submit their details', async () => {
      const live = await startCommerceApi({
        ...api.config,
        checkouts: { ...api.config.checkouts, sellerDetailsRequired: true },
      });
      try {
        const newcomer = await createSeller(live);
        const liveBuyer = polarClient(live.url);
        const zine = await newcomer.polar.products.create({
          name: 'Zine',
          prices: [{ amountType: 'fixed', priceAmount: 1200 }],
        });
        const sticker = await newcomer.polar.products.create({
          name: 'Sticker',
          prices: [{ amountType: 'free' }],
        });
        const paid = await newcomer.polar.checkouts.create({ products: [zine.id] });
        const confirmPaid = () =>
          liveBuyer.checkouts.clientConfirm({
            clientSecret: paid.clientSecret,
            checkoutConfirmStripe: { customerEmail: `zine-${randomUUID()}@example.com` },
          });
        await assert.rejects(confirmPaid(), (error) => {
          assert.ok(error instanceof PaymentNotReady, String(error));
          assert.equal(error.statusCode, 403);
          return true;
        });
        assert.equal((await stored(paid.id)).status, 'open');

        // Nothing to pay: confirmed all the same.
        const free = await newcomer.polar.checkouts.create({ products: [sticker.id] });
        const confirmed = await liveBuyer.checkouts.clientConfirm({
          clientSecret: free.clientSecret,
          checkoutConfirmStripe: { customerEmail: `sticker-${randomUUID()}@example.com` },
        });
        assert.equal(confirmed.status, 'confirmed');

        // Its details submitted, the organization takes payments: the confirm goes on to ask
        // for what a payment needs.
        await newcomer.polar.organizations.update({
          id: newcomer.organizationId,
          organizationUpdate: {
            details: {
              about: 'Zines',
              productDescription: 'Printed zines',
              intendedUse: 'Selling zines',
              customerAcquisition: ['website'],
              futureAnnualRevenue: 1000,
            },
          },
        });
        const locs = await refusedAt(confirmPaid());
        assert.ok(
          locs.some((loc) => loc.join('.') === 'body.confirmation_token_id'),
          JSON.stringify(locs),
        );
      } finally {
        await live.close();
      }
    });

    it('is idempotent per confirm: the same confirm again changes nothing, another is refused', async () => {
      const discount = await insertDiscount(seller.organizationId, {
        code: uniqueCode(),
        basisPoints: 10_000,
      });
      const checkout = await seller.polar.checkouts.create({
        products: [ebookId],
        discountId: discount.id,
      });
      const body = { customer_email: `same-${randomUUID()}@example.com` };
      const confirmId = randomUUID();
      const first = await confirmCheckout(em(), checkout.id, body, confirmId, publicUrl());
      assert.equal(first.totalAmount, 0);
      assert.equal(first.isPaymentRequired, false);
      const again = await confirmCheckout(em(), checkout.id, body, confirmId, publicUrl());
      assert.deepEqual(again, first);
      const second = await confirmRefusal(
        confirmCheckout(em(), checkout.id, body, randomUUID(), publicUrl()),
      );
      assert.equal(second.code, 'NotOpenCheckout');
      assert.equal((await em().findOneOrFail(Discount, discount.id)).redemptionsCount, 1);
      assert.equal(await em().count(DiscountRedemption, { checkout: checkout.id }), 1);
      const customers = await em().count(Customer, { email: body.customer_email });
      assert.equal(customers, 1);
    });

    it('refuses a discount that ended since it was applied, rather than charge the full price', async () => {
      const discount = await insertDiscount(seller.organizationId, { code: uniqueCode() });
      const checkout = await seller.polar.checkouts.create({
        products: [freebieId, tipJarId],
        discountId: discount.id,
      });
      await buyer.checkouts.clientUpdate({
        clientSecret: checkout.clientSecret,
        checkoutUpdatePublic: { productId: tipJarId },
      });
      await em().nativeUpdate(
        Discount,
        { id: discount.id },
        { endsAt: new Date(Date.now() - 1000) },
      );
      const refused = await confirmRefusal(
        confirmCheckout(
          em(),
          checkout.id,
          { customer_email: 'late@example.com' },
          randomUUID(),
          publicUrl(),
        ),
      );
      assert.deepEqual(refused.locs, [['body', 'discount_id']]);
      const untouched = await stored(checkout.id);
      assert.deepEqual([untouched.status, untouched.discount?.id], ['open', discount.id]);
    });

    it('never redeems a discount beyond max_redemptions, however many confirm at once', async () => {
      const code = uniqueCode();
      const discount = await insertDiscount(seller.organizationId, {
        code,
        basisPoints: 10_000,
        maxRedemptions: 1,
      });
      const checkouts = await Promise.all(
        Array.from({ length: 6 }, () => seller.polar.checkouts.create({ products: [ebookId] })),
      );
      for (const checkout of checkouts) {
        await buyer.checkouts.clientUpdate({
          clientSecret: checkout.clientSecret,
          checkoutUpdatePublic: { discountCode: code },
        });
      }
      const results = await Promise.allSettled(
        checkouts.map((checkout, index) =>
          confirmCheckout(
            em(),
            checkout.id,
            { customer_email: `rush-${index}-${randomUUID()}@example.com` },
            randomUUID(),
            publicUrl(),
          ),
        ),
      );
      assert.equal(results.filter((result) => result.status === 'fulfilled').length, 1);
      for (const result of results) {
        if (result.status === 'rejected') {
          const refusal = await confirmRefusal(Promise.reject(result.reason));
          assert.deepEqual(refusal.locs, [['body', 'discount_id']]);
        }
      }
      assert.equal((await em().findOneOrFail(Discount, discount.id)).redemptionsCount, 1);
      assert.equal(await em().count(DiscountRedemption, { discount: discount.id }), 1);
      const confirmed = await em().count(Checkout, {
        id: { $in: checkouts.map((checkout) => checkout.id) },
        status: 'confirmed',
      });
      assert.equal(confirmed, 1);
    });
  });

  describe('checkout links', () => {
    it('open a new checkout and redirect the buyer to it', async () => {
      const link = await seller.polar.checkoutLinks.create({
        paymentProcessor: 'stripe',
        products: [tipJarId, ebookId],
        metadata: { source: 'newsletter' },
      });
      // The link's URL names the public host; the test API listens elsewhere.
      assert.ok(link.url.endsWith(`/v1/checkout-links/${link.clientSecret}/redirect`));
      const redirect = `${api.url}/v1/checkout-links/${link.clientSecret}/redirect`;
      const response = await fetch(`${redirect}?customer_email=lin%40example.com`, {
        redirect: 'manual',
      });
      assert.equal(response.status, 302);
      const location = response.headers.get('location') ?? '';
      const clientSecret = location.split('/checkout/')[1] as string;
      assert.equal(location, `${api.config.api.publicUrl}/checkout/${clientSecret}`);
      const checkout = await buyer.checkouts.clientGet({ clientSecret });
      assert.deepEqual(
        checkout.products.map((product) => product.id),
        [tipJarId, ebookId],
      );
      assert.equal(checkout.customerEmail, 'lin@example.com');
      const row = await stored(checkout.id);
      assert.equal(row.checkoutLink?.id, link.id);
      assert.deepEqual(row.metadata, { source: 'newsletter' });

      const unknown = await fetch(`${api.url}/v1/checkout-links/nope/redirect`, {
        redirect: 'manual',
      });
      assert.equal(unknown.status, 404);
    });
  });
});
