import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { ResourceNotFound } from '@polar-sh/sdk/models/errors/resourcenotfound.js';
import { CheckoutLink, Discount, DiscountProduct } from '../../db/entities/index.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';

describe('checkout links (/v1/checkout-links)', () => {
  let api: TestApi;
  let seller: Seller;
  let other: Seller;
  let ebookId: string;
  let ebookPriceId: string;
  let planId: string;
  let archivedId: string;
  let theirProductId: string;
  let discountId: string;
  let theirDiscountId: string;

  /** A discount inserted directly (restricted to `productIds` when given). */
  async function insertDiscount(organizationId: string, productIds: string[] = []) {
    const em = api.orm.em.fork();
    const discount = em.create(Discount, {
      organization: organizationId,
      name: 'Launch week',
      code: `LAUNCH${randomUUID().slice(0, 6)}`,
      type: 'percentage',
      basisPoints: 2500,
      duration: 'once',
    });
    for (const product of productIds) em.create(DiscountProduct, { discount, product });
    await em.flush();
    return discount.id;
  }

  const linkCount = (organizationId: string) =>
    api.orm.em.fork().count(CheckoutLink, { organization: organizationId });

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
    other = await createSeller(api);
    const ebook = await seller.polar.products.create({
      name: 'Ebook',
      prices: [{ amountType: 'fixed', priceAmount: 1900 }],
    });
    ebookId = ebook.id;
    ebookPriceId = ebook.prices[0]?.id as string;
    const plan = await seller.polar.products.create({
      name: 'Pro plan',
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount: 900 }],
    });
    planId = plan.id;
    const support = await seller.polar.benefits.create({
      type: 'custom',
      description: 'Priority support',
      properties: { note: 'Write to vip@example.com' },
    });
    await seller.polar.products.updateBenefits({
      id: planId,
      productBenefitsUpdate: { benefits: [support.id] },
    });
    const archived = await seller.polar.products.create({
      name: 'Old edition',
      prices: [{ amountType: 'free' }],
    });
    archivedId = archived.id;
    await seller.polar.products.update({ id: archivedId, productUpdate: { isArchived: true } });
    const theirs = await other.polar.products.create({
      name: 'Their product',
      prices: [{ amountType: 'free' }],
    });
    theirProductId = theirs.id;
    discountId = await insertDiscount(seller.organizationId);
    theirDiscountId = await insertDiscount(other.organizationId);
  });
  after(() => api.close());

  it('creates a link offering several products, with their prices and a discount', async () => {
    const link = await seller.polar.checkoutLinks.create({
      paymentProcessor: 'stripe',
      products: [planId, ebookId],
      label: 'Newsletter',
      successUrl: 'https://shop.example.com/thanks?checkout_id={CHECKOUT_ID}',
      discountId,
      trialInterval: 'week',
      trialIntervalCount: 2,
      metadata: { campaign: 'spring' },
    });
    assert.deepEqual(
      link.products.map((product) => product.id),
      [planId, ebookId],
    );
    assert.equal(link.products[0]?.prices[0]?.id !== undefined, true);
    assert.equal(link.products[1]?.isRecurring, false);
    assert.equal(link.discountId, discountId);
    assert.equal(link.discount?.id, discountId);
    assert.equal(link.label, 'Newsletter');
    assert.equal(link.allowDiscountCodes, true);
    assert.equal(link.requireBillingAddress, false);
    assert.equal(link.trialInterval, 'week');
    assert.equal(link.trialIntervalCount, 2);
    assert.deepEqual(link.metadata, { campaign: 'spring' });
    assert.match(link.clientSecret, /^tollgate_cl_[A-Za-z0-9_-]{43}$/);
    assert.equal(new URL(link.url).pathname, `/v1/checkout-links/${link.clientSecret}/redirect`);

    // Benefits show only their public part: no properties (the note is for customers who bought).
    const wire = await callV1(api, seller.token, 'GET', `/v1/checkout-links/${link.id}`);
    const [planWire] = wire.body.products;
    assert.equal(planWire.benefits[0].description, 'Priority support');
    assert.equal(planWire.benefits[0].properties, undefined);
    assert.equal(planWire.attached_custom_fields, undefined);
    assert.equal(wire.body.discount.basis_points, 2500);

    const fetched = await seller.polar.checkoutLinks.get({ id: link.id });
    assert.equal(fetched.clientSecret, link.clientSecret);
    assert.deepEqual(
      fetched.products.map((product) => product.id),
      [planId, ebookId],
    );
  });

  it('creates a link from a single product_id or product_price_id (deprecated forms)', async () => {
    const byProduct = await seller.polar.checkoutLinks.create({
      paymentProcessor: 'stripe',
      productId: ebookId,
    });
    assert.deepEqual(
      byProduct.products.map((product) => product.id),
      [ebookId],
    );
    assert.equal(byProduct.discount, null);
    assert.equal(byProduct.successUrl, null);
    const byPrice = await seller.polar.checkoutLinks.create({
      paymentProcessor: 'stripe',
      productPriceId: ebookPriceId,
      allowDiscountCodes: false,
      requireBillingAddress: true,
    });
    assert.deepEqual(
      byPrice.products.map((product) => product.id),
      [ebookId],
    );
    assert.equal(byPrice.allowDiscountCodes, false);
    assert.equal(byPrice.requireBillingAddress, true);
    assert.notEqual(byPrice.clientSecret, byProduct.clientSecret);
  });

  it('updates products, label, discount and flags; one-time products drop the trial', async () => {
    const link = await seller.polar.checkoutLinks.create({
      paymentProcessor: 'stripe',
      products: [ebookId],
      discountId,
    });
    const updated = await seller.polar.checkoutLinks.update({
      id: link.id,
      checkoutLinkUpdate: {
        products: [planId, ebookId],
        label: 'Bundle',
        discountId: null,
        allowDiscountCodes: false,
        trialInterval: 'month',
        trialIntervalCount: 1,
        metadata: { channel: 'email' },
      },
    });
    assert.deepEqual(
      updated.products.map((product) => product.id),
      [planId, ebookId],
    );
    assert.equal(updated.label, 'Bundle');
    assert.equal(updated.discountId, null);
    assert.equal(updated.discount, null);
    assert.equal(updated.allowDiscountCodes, false);
    assert.equal(updated.trialInterval, 'month');
    assert.deepEqual(updated.metadata, { channel: 'email' });
    assert.ok(updated.modifiedAt instanceof Date);

    const untouched = await seller.polar.checkoutLinks.update({
      id: link.id,
      checkoutLinkUpdate: { successUrl: 'https://shop.example.com/done' },
    });
    assert.equal(untouched.label, 'Bundle', 'absent fields keep their value');
    assert.equal(untouched.products.length, 2);

    const refused = await callV1(api, seller.token, 'PATCH', `/v1/checkout-links/${link.id}`, {
      products: [ebookId],
      trial_interval: 'day',
      trial_interval_count: 3,
    });
    assert.equal(refused.status, 422);
    assert.deepEqual(refused.body.detail[0].loc, ['body', 'trial_interval']);
    const kept = await seller.polar.checkoutLinks.get({ id: link.id });
    assert.equal(kept.products.length, 2, 'a refused update changes nothing');
    assert.equal(kept.trialInterval, 'month');

    // Switching to one-time products alone drops the trial, as in Polar.
    const oneTime = await seller.polar.checkoutLinks.update({
      id: link.id,
      checkoutLinkUpdate: { products: [ebookId] },
    });
    assert.deepEqual(
      oneTime.products.map((product) => product.id),
      [ebookId],
    );
    assert.equal(oneTime.trialInterval, null);
    assert.equal(oneTime.trialIntervalCount, null);
  });

  it('lists links in creation order, filtered by product', async () => {
    const seller2 = await createSeller(api);
    const course = await seller2.polar.products.create({
      name: 'Course',
      prices: [{ amountType: 'fixed', priceAmount: 5000 }],
    });
    const book = await seller2.polar.products.create({
      name: 'Book',
      prices: [{ amountType: 'fixed', priceAmount: 1500 }],
    });
    const create = (products: string[], label: string) =>
      seller2.polar.checkoutLinks.create({ paymentProcessor: 'stripe', products, label });
    const first = await create([course.id], 'b-course');
    const second = await create([book.id], 'c-book');
    const third = await create([book.id, course.id], 'a-both');

    const ids = async (request: Parameters<Seller['polar']['checkoutLinks']['list']>[0]) =>
      (await seller2.polar.checkoutLinks.list(request)).result.items.map((link) => link.id);
    assert.deepEqual(await ids({}), [first.id, second.id, third.id]);
    assert.deepEqual(await ids({ productId: course.id }), [first.id, third.id]);
    assert.deepEqual(await ids({ productId: [book.id] }), [second.id, third.id]);
    assert.deepEqual(await ids({ sorting: ['label'] }), [third.id, first.id, second.id]);
    assert.deepEqual(await ids({ organizationId: other.organizationId }), []);

    await seller2.polar.checkoutLinks.delete({ id: second.id });
    assert.deepEqual(await ids({ productId: book.id }), [third.id]);
    const page = await seller2.polar.checkoutLinks.list({ limit: 1 });
    assert.equal(page.result.pagination.totalCount, 2);
  });

  it('deletes softly: the link is gone for the API, its row stays', async () => {
    const link = await seller.polar.checkoutLinks.create({
      paymentProcessor: 'stripe',
      products: [ebookId],
    });
    const deleted = await callV1(api, seller.token, 'DELETE', `/v1/checkout-links/${link.id}`);
    assert.equal(deleted.status, 204);
    assert.equal(deleted.body, null);
    await assert.rejects(seller.polar.checkoutLinks.get({ id: link.id }), ResourceNotFound);
    await assert.rejects(seller.polar.checkoutLinks.delete({ id: link.id }), ResourceNotFound);
    const row = await api.orm.em.fork().findOneOrFail(CheckoutLink, { id: link.id });
    assert.ok(row.deletedAt instanceof Date);
  });

  it('refuses bad input with 422 at the field, writing nothing', async () => {
    const restrictedDiscountId = await insertDiscount(seller.organizationId, [planId]);
    const cases: [label: string, body: object, loc: (string | number)[]][] = [
      ['missing payment_processor', { products: [ebookId] }, ['body', 'payment_processor']],
      [
        'unknown payment processor',
        { payment_processor: 'paypal', products: [ebookId] },
        ['body', 'payment_processor'],
      ],
      ['no product at all', { payment_processor: 'stripe' }, ['body', 'products']],
      ['empty products', { payment_processor: 'stripe', products: [] }, ['body', 'products']],
      [
        "another organization's product",
        { payment_processor: 'stripe', products: [ebookId, theirProductId] },
        ['body', 'products', 1],
      ],
      [
        'an archived product',
        { payment_processor: 'stripe', products: [archivedId] },
        ['body', 'products', 0],
      ],
      [
        'an archived product by product_id',
        { payment_processor: 'stripe', product_id: archivedId },
        ['body', 'product_id'],
      ],
      [
        'a product listed twice',
        { payment_processor: 'stripe', products: [ebookId, ebookId] },
        ['body', 'products', 1],
      ],
      [
        'an unknown price',
        { payment_processor: 'stripe', product_price_id: randomUUID() },
        ['body', 'product_price_id'],
      ],
      [
        'two forms at once',
        { payment_processor: 'stripe', products: [ebookId], product_id: ebookId },
        ['body', 'product_id'],
      ],
      [
        "another organization's discount",
        { payment_processor: 'stripe', products: [ebookId], discount_id: theirDiscountId },
        ['body', 'discount_id'],
      ],
      [
        'a discount restricted to other products',
        { payment_processor: 'stripe', products: [ebookId], discount_id: restrictedDiscountId },
        ['body', 'discount_id'],
      ],
      [
        'a trial on one-time products',
        {
          payment_processor: 'stripe',
          products: [ebookId],
          trial_interval: 'day',
          trial_interval_count: 7,
        },
        ['body', 'trial_interval'],
      ],
      [
        'a trial interval without its count',
        { payment_processor: 'stripe', products: [planId], trial_interval: 'day' },
        ['body', 'trial_interval_count'],
      ],
      [
        'a success_url that is no URL',
        { payment_processor: 'stripe', products: [ebookId], success_url: 'thanks' },
        ['body', 'success_url'],
      ],
    ];
    const before = await linkCount(seller.organizationId);
    for (const [label, body, loc] of cases) {
      const refused = await callV1(api, seller.token, 'POST', '/v1/checkout-links/', body);
      assert.equal(refused.status, 422, label);
      assert.deepEqual(refused.body.detail[0].loc, loc, label);
    }
    assert.equal(await linkCount(seller.organizationId), before);

    // A restricted discount is fine when the link offers one of its products.
    const restricted = await seller.polar.checkoutLinks.create({
      paymentProcessor: 'stripe',
      products: [ebookId, planId],
      discountId: restrictedDiscountId,
    });
    assert.equal(restricted.discountId, restrictedDiscountId);
  });

  it("never reads, changes or deletes another organization's link", async () => {
    const theirs = await other.polar.checkoutLinks.create({
      paymentProcessor: 'stripe',
      products: [theirProductId],
      label: 'Theirs',
    });
    await assert.rejects(seller.polar.checkoutLinks.get({ id: theirs.id }), ResourceNotFound);
    await assert.rejects(
      seller.polar.checkoutLinks.update({
        id: theirs.id,
        checkoutLinkUpdate: { label: 'Taken over' },
      }),
      ResourceNotFound,
    );
    await assert.rejects(seller.polar.checkoutLinks.delete({ id: theirs.id }), ResourceNotFound);
    const mine = await seller.polar.checkoutLinks.create({
      paymentProcessor: 'stripe',
      products: [ebookId],
    });
    const moved = await callV1(api, seller.token, 'PATCH', `/v1/checkout-links/${mine.id}`, {
      products: [theirProductId],
    });
    assert.equal(moved.status, 422);
    assert.deepEqual(moved.body.detail[0].loc, ['body', 'products', 0]);
    const untouched = await other.polar.checkoutLinks.get({ id: theirs.id });
    assert.equal(untouched.label, 'Theirs');
  });
});
