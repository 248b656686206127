import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Product } from '@polar-sh/sdk/models/components/product.js';
import { HTTPValidationError } from '@polar-sh/sdk/models/errors/httpvalidationerror.js';
import { ResourceNotFound } from '@polar-sh/sdk/models/errors/resourcenotfound.js';
import {
  Benefit,
  CustomField,
  Meter,
  OutboxEvent,
  ProductPrice,
  Product as ProductRow,
  StoredFile,
} from '../../db/entities/index.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';

const tag = () => randomBytes(4).toString('hex');

// Fixtures straight in the database: meters, benefits, files and custom fields have their own
// suites; here they only need to exist (or not) in the right organization.
async function insertMeter(api: TestApi, organizationId: string, name = 'API calls') {
  const em = api.orm.em.fork();
  const meter = em.create(Meter, {
    organization: organizationId,
    name,
    filter: { conjunction: 'and', clauses: [{ property: 'name', operator: 'eq', value: 'call' }] },
    aggregation: { func: 'count' },
  });
  await em.flush();
  return meter.id;
}

async function insertBenefit(
  api: TestApi,
  organizationId: string,
  { selectable = true, description = 'Priority support' } = {},
) {
  const em = api.orm.em.fork();
  const benefit = em.create(Benefit, {
    organization: organizationId,
    type: 'custom',
    description,
    selectable,
    properties: { note: 'Write to support@example.com' },
  });
  await em.flush();
  return benefit.id;
}

async function insertMediaFile(
  api: TestApi,
  organizationId: string,
  { isUploaded = true, service = 'product_media' as const } = {},
) {
  const em = api.orm.em.fork();
  const name = `cover-${tag()}.png`;
  const file = em.create(StoredFile, {
    organization: organizationId,
    name,
    path: `${organizationId}/${name}`,
    mimeType: 'image/png',
    size: 2048,
    service,
    isUploaded,
  });
  await em.flush();
  return file.id;
}

async function insertCustomField(api: TestApi, organizationId: string) {
  const em = api.orm.em.fork();
  const field = em.create(CustomField, {
    organization: organizationId,
    type: 'text',
    slug: `company-${tag()}`,
    name: 'Company',
    properties: { form_label: 'Company' },
  });
  await em.flush();
  return field.id;
}

/** What an organization has written: products, prices and outbox events. */
async function writtenRows(api: TestApi, organizationId: string) {
  const em = api.orm.em.fork();
  return {
    products: await em.count(ProductRow, { organization: organizationId }),
    prices: await em.count(ProductPrice, { product: { organization: organizationId } }),
    events: await em.count(OutboxEvent, { organization: organizationId }),
  };
}

describe('products and prices (/v1/products)', () => {
  let api: TestApi;
  let seller: Seller;
  let other: Seller;
  let meterId: string;
  let otherMeterId: string;

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
    other = await createSeller(api);
    meterId = await insertMeter(api, seller.organizationId);
    otherMeterId = await insertMeter(api, other.organizationId);
  });
  after(() => api.close());

  it('creates a one-time product with a fixed price and records product.created', async () => {
    const product = await seller.polar.products.create({
      name: 'Ebook',
      description: 'The whole book',
      metadata: { sku: 'EB-1', pages: 320 },
      prices: [{ amountType: 'fixed', priceAmount: 1900 }],
    });
    assert.equal(product.isRecurring, false);
    assert.equal(product.recurringInterval, null);
    assert.equal(product.modifiedAt, null);
    assert.deepEqual(product.metadata, { sku: 'EB-1', pages: 320 });
    const [price] = product.prices;
    assert.ok(price && 'amountType' in price && price.amountType === 'fixed');
    assert.equal(price.priceAmount, 1900);
    assert.equal(price.priceCurrency, 'usd');
    assert.equal(price.type, 'one_time');
    assert.equal(price.recurringInterval, null);
    assert.equal(price.productId, product.id);

    const read = await seller.polar.products.get({ id: product.id });
    assert.deepEqual(read, product);
    const events = await api.orm.em
      .fork()
      .find(OutboxEvent, { organization: seller.organizationId, type: 'product.created' });
    const event = events.find((candidate) => candidate.data.id === product.id);
    assert.ok(event, 'product.created was recorded');
    assert.equal((event.data.prices as unknown[]).length, 1);
  });

  it('creates recurring products with every price type, read back through the SDK', async () => {
    const custom = await seller.polar.products.create({
      name: 'Tip jar',
      recurringInterval: 'month',
      prices: [
        { amountType: 'custom', minimumAmount: 100, presetAmount: 500, maximumAmount: 10_000 },
      ],
    });
    const customPrice = custom.prices[0];
    assert.ok(customPrice && 'amountType' in customPrice && customPrice.amountType === 'custom');
    assert.deepEqual(
      [customPrice.minimumAmount, customPrice.presetAmount, customPrice.maximumAmount],
      [100, 500, 10_000],
    );
    assert.equal(customPrice.type, 'recurring');
    assert.equal(customPrice.recurringInterval, 'month');

    const free = await seller.polar.products.create({
      name: 'Community plan',
      recurringInterval: 'year',
      trialInterval: 'day',
      trialIntervalCount: 14,
      prices: [{ amountType: 'free' }],
    });
    assert.equal(free.prices[0]?.amountType, 'free');
    assert.equal(free.trialInterval, 'day');
    assert.equal(free.trialIntervalCount, 14);

    // Metered prices come after the static one, whatever order they were sent in.
    const secondMeterId = await insertMeter(api, seller.organizationId, 'Storage GB');
    const usage = await seller.polar.products.create({
      name: 'API plan',
      recurringInterval: 'month',
      prices: [
        { amountType: 'metered_unit', meterId, unitAmount: 0.5, capAmount: 10_000 },
        { amountType: 'fixed', priceAmount: 2900 },
        { amountType: 'metered_unit', meterId: secondMeterId, unitAmount: '0.000000000125' },
      ],
    });
    const [first, ...metered] = usage.prices;
    assert.equal(first?.amountType, 'fixed');
    assert.deepEqual(metered.map((price) => price.amountType).sort(), [
      'metered_unit',
      'metered_unit',
    ]);
    const byMeter = new Map(
      metered.map((price) => {
        assert.ok('amountType' in price && price.amountType === 'metered_unit');
        return [price.meterId, price];
      }),
    );
    assert.equal(byMeter.get(meterId)?.unitAmount, '0.5');
    assert.equal(byMeter.get(meterId)?.capAmount, 10_000);
    assert.deepEqual(byMeter.get(meterId)?.meter, { id: meterId, name: 'API calls' });
    assert.equal(byMeter.get(secondMeterId)?.unitAmount, '0.000000000125');
    assert.equal(byMeter.get(secondMeterId)?.capAmount, null);
    assert.deepEqual(await seller.polar.products.get({ id: usage.id }), usage);

    // Seat-based pricing is a feature the organization turns on.
    const refused = await callV1(api, seller.token, 'POST', '/v1/products/', {
      name: 'Team plan',
      recurring_interval: 'month',
      prices: [{ amount_type: 'seat_based', price_per_seat: 1000 }],
    });
    assert.equal(refused.status, 422);
    assert.deepEqual(refused.body.detail[0].loc, ['body', 'prices', 0]);
    await seller.polar.organizations.update({
      id: seller.organizationId,
      organizationUpdate: { featureSettings: { seatBasedPricingEnabled: true } },
    });
    const seats = await seller.polar.products.create({
      name: 'Team plan',
      recurringInterval: 'month',
      prices: [{ amountType: 'seat_based', pricePerSeat: 1000 }],
    });
    const seatPrice = seats.prices[0];
    assert.ok(seatPrice && 'amountType' in seatPrice && seatPrice.amountType === 'seat_based');
    assert.equal(seatPrice.pricePerSeat, 1000);
  });

  it('shows medias, custom fields and benefits in the order given', async () => {
    const firstFile = await insertMediaFile(api, seller.organizationId);
    const secondFile = await insertMediaFile(api, seller.organizationId);
    const fieldId = await insertCustomField(api, seller.organizationId);
    const product = await seller.polar.products.create({
      name: 'Poster',
      prices: [{ amountType: 'fixed', priceAmount: 2500 }],
      medias: [secondFile, firstFile],
      attachedCustomFields: [{ customFieldId: fieldId, required: true }],
    });
    assert.deepEqual(
      product.medias.map((media) => media.id),
      [secondFile, firstFile],
    );
    assert.equal(product.medias[0]?.service, 'product_media');
    assert.equal(product.attachedCustomFields[0]?.customFieldId, fieldId);
    assert.equal(product.attachedCustomFields[0]?.required, true);
    assert.equal(product.attachedCustomFields[0]?.order, 0);
    assert.equal(product.attachedCustomFields[0]?.customField.name, 'Company');

    const support = await insertBenefit(api, seller.organizationId, { description: 'Support' });
    const updates = await insertBenefit(api, seller.organizationId, { description: 'Updates' });
    const withBenefits = await seller.polar.products.updateBenefits({
      id: product.id,
      productBenefitsUpdate: { benefits: [updates, support] },
    });
    assert.deepEqual(
      withBenefits.benefits.map((benefit) => benefit.id),
      [updates, support],
    );
    const reordered = await seller.polar.products.updateBenefits({
      id: product.id,
      productBenefitsUpdate: { benefits: [support] },
    });
    assert.deepEqual(
      reordered.benefits.map((benefit) => benefit.id),
      [support],
    );
    assert.deepEqual(
      (await seller.polar.products.get({ id: product.id })).benefits.map((benefit) => benefit.id),
      [support],
    );
  });

  it('replaces prices on update: kept by id, new ones added, the rest archived but kept', async () => {
    const product = await seller.polar.products.create({
      name: 'Pro plan',
      recurringInterval: 'month',
      prices: [
        { amountType: 'fixed', priceAmount: 1000 },
        { amountType: 'metered_unit', meterId, unitAmount: 2 },
      ],
    });
    const fixed = product.prices.find((price) => price.amountType === 'fixed');
    const metered = product.prices.find((price) => price.amountType === 'metered_unit');
    assert.ok(fixed && metered);

    const updated = await seller.polar.products.update({
      id: product.id,
      productUpdate: {
        name: 'Pro plan (2025)',
        prices: [{ id: metered.id }, { amountType: 'fixed', priceAmount: 1500 }],
      },
    });
    assert.equal(updated.name, 'Pro plan (2025)');
    assert.ok(updated.modifiedAt instanceof Date);
    assert.equal(updated.prices.length, 2);
    const [newFixed, kept] = updated.prices;
    assert.ok(newFixed && 'amountType' in newFixed && newFixed.amountType === 'fixed');
    assert.equal(newFixed.priceAmount, 1500);
    assert.notEqual(newFixed.id, fixed.id);
    assert.equal(kept?.id, metered.id);
    assert.deepEqual(kept, metered, 'a kept price is untouched');

    const archived = await api.orm.em.fork().findOneOrFail(ProductPrice, { id: fixed.id });
    assert.equal(archived.isArchived, true);
    assert.equal(archived.priceAmount, 1000, 'prices are never changed, only archived');
    assert.deepEqual(await seller.polar.products.get({ id: product.id }), updated);

    const events = await api.orm.em.fork().find(OutboxEvent, {
      organization: seller.organizationId,
      type: 'product.updated',
    });
    const event = events.find((candidate) => candidate.data.id === product.id);
    assert.ok(event, 'product.updated was recorded');
    assert.equal((event.data.prices as unknown[]).length, 2);
  });

  it('refuses to change the recurring interval, and archives a product that stays readable', async () => {
    const product = await seller.polar.products.create({
      name: 'Monthly box',
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount: 3000 }],
    });
    await assert.rejects(
      seller.polar.products.update({
        id: product.id,
        productUpdate: { recurringInterval: 'year' },
      }),
      HTTPValidationError,
    );
    const refused = await callV1(api, seller.token, 'PATCH', `/v1/products/${product.id}`, {
      recurring_interval: 'year',
      name: 'Yearly box',
    });
    assert.equal(refused.status, 422);
    assert.equal(refused.body.error, 'PolarRequestValidationError');
    assert.deepEqual(refused.body.detail[0].loc, ['body', 'recurring_interval']);
    assert.equal(refused.body.detail[0].msg, 'Recurring interval cannot be changed.');

    const archived = await seller.polar.products.update({
      id: product.id,
      productUpdate: { isArchived: true },
    });
    assert.equal(archived.isArchived, true);
    assert.equal(archived.name, 'Monthly box');
    assert.equal(archived.recurringInterval, 'month');
    assert.equal((await seller.polar.products.get({ id: product.id })).isArchived, true);
  });

  it('answers reads that follow changes to what products embed (benefits, meters)', async () => {
    const meter = await seller.polar.meters.create({
      name: 'Seats in use',
      filter: { conjunction: 'and', clauses: [] },
      aggregation: { func: 'count' },
    });
    const benefit = await seller.polar.benefits.create({
      type: 'custom',
      description: 'Onboarding call',
      properties: { note: null },
    });
    const product = await seller.polar.products.create({
      name: `Team plan ${tag()}`,
      recurringInterval: 'month',
      prices: [{ amountType: 'metered_unit', meterId: meter.id, unitAmount: '0.25' }],
    });
    await seller.polar.products.updateBenefits({
      id: product.id,
      productBenefitsUpdate: { benefits: [benefit.id] },
    });
    const listed = async () => {
      const page = await seller.polar.products.list({ id: product.id });
      return page.result.items[0];
    };
    assert.equal((await listed())?.benefits[0]?.description, 'Onboarding call');
    assert.equal((await seller.polar.products.get({ id: product.id })).benefits.length, 1);

    await seller.polar.benefits.update({
      id: benefit.id,
      requestBody: { type: 'custom', description: 'Onboarding workshop' },
    });
    await seller.polar.meters.update({ id: meter.id, meterUpdate: { name: 'Active seats' } });
    const after = await listed();
    assert.equal(after?.benefits[0]?.description, 'Onboarding workshop');
    const price = after?.prices[0];
    assert.ok(price && 'meter' in price);
    assert.equal(price.meter.name, 'Active seats');

    await seller.polar.benefits.delete({ id: benefit.id });
    assert.deepEqual((await seller.polar.products.get({ id: product.id })).benefits, []);
  });

  it("hides an organization's products from another organization's token", async () => {
    const product = await seller.polar.products.create({
      name: 'Private product',
      prices: [{ amountType: 'free' }],
    });
    const benefitId = await insertBenefit(api, other.organizationId);
    await assert.rejects(other.polar.products.get({ id: product.id }), ResourceNotFound);
    await assert.rejects(
      other.polar.products.update({ id: product.id, productUpdate: { name: 'Taken over' } }),
      ResourceNotFound,
    );
    await assert.rejects(
      other.polar.products.updateBenefits({
        id: product.id,
        productBenefitsUpdate: { benefits: [benefitId] },
      }),
      ResourceNotFound,
    );
    await assert.rejects(other.polar.products.get({ id: randomUUID() }), ResourceNotFound);
    const listed = await other.polar.products.list({ id: product.id });
    assert.equal(listed.result.pagination.totalCount, 0);
    assert.equal((await seller.polar.products.get({ id: product.id })).name, 'Private product');

    const malformed = await callV1(api, seller.token, 'GET', '/v1/products/not-a-uuid');
    assert.equal(malformed.status, 422);
    assert.deepEqual(malformed.body.detail[0].loc, ['path', 'id']);
  });

  describe('refusing bad input with 422 and writing nothing', () => {
    const fixed = { amount_type: 'fixed', price_amount: 1000 };
    const creates: [
      name: string,
      body: () => Record<string, unknown>,
      loc: (string | number)[],
      error?: string,
    ][] = [
      [
        'a negative amount',
        () => ({ prices: [{ ...fixed, price_amount: -100 }] }),
        ['body', 'prices', 0, 'price_amount'],
      ],
      [
        'a fractional amount',
        () => ({ prices: [{ ...fixed, price_amount: 10.5 }] }),
        ['body', 'prices', 0, 'price_amount'],
      ],
      [
        'an amount below 50 cents',
        () => ({ prices: [{ ...fixed, price_amount: 49 }] }),
        ['body', 'prices', 0, 'price_amount'],
      ],
      [
        'an amount above the maximum',
        () => ({ prices: [{ ...fixed, price_amount: 100_000_000 }] }),
        ['body', 'prices', 0, 'price_amount'],
      ],
      [
        'a currency that is no ISO code',
        () => ({ prices: [{ ...fixed, price_currency: 'dollars' }] }),
        ['body', 'prices', 0, 'price_currency'],
      ],
      [
        'a currency other than usd',
        () => ({ prices: [{ ...fixed, price_currency: 'eur' }] }),
        ['body', 'prices', 0, 'price_currency'],
      ],
      [
        'an unknown amount type',
        () => ({ prices: [{ amount_type: 'tiered', price_amount: 1000 }] }),
        ['body', 'prices', 0, 'amount_type'],
      ],
      [
        'a custom minimum above its maximum',
        () => ({ prices: [{ amount_type: 'custom', minimum_amount: 5000, maximum_amount: 1000 }] }),
        ['body', 'prices', 0, 'minimum_amount'],
      ],
      [
        'a custom preset above its maximum',
        () => ({ prices: [{ amount_type: 'custom', preset_amount: 5000, maximum_amount: 1000 }] }),
        ['body', 'prices', 0, 'preset_amount'],
      ],
      [
        'a custom maximum above $10K',
        () => ({ prices: [{ amount_type: 'custom', maximum_amount: 1_000_001 }] }),
        ['body', 'prices', 0, 'maximum_amount'],
      ],
      [
        'a zero unit amount',
        () => ({
          recurring_interval: 'month',
          prices: [{ amount_type: 'metered_unit', meter_id: meterId, unit_amount: 0 }],
        }),
        ['body', 'prices', 0, 'unit_amount'],
      ],
      [
        'a unit amount with 13 decimals',
        () => ({
          recurring_interval: 'month',
          prices: [
            { amount_type: 'metered_unit', meter_id: meterId, unit_amount: '0.0000000000001' },
          ],
        }),
        ['body', 'prices', 0, 'unit_amount'],
      ],
      ['no price', () => ({ prices: [] }), ['body', 'prices']],
      ['a name under 3 characters', () => ({ name: 'Ab', prices: [fixed] }), ['body', 'name']],
      [
        'an organization id with an organization token',
        () => ({ organization_id: seller.organizationId, prices: [fixed] }),
        ['body', 'organization_id'],
        'PolarRequestValidationError',
      ],
      [
        'a metered price on a one-time product',
        () => ({
          prices: [fixed, { amount_type: 'metered_unit', meter_id: meterId, unit_amount: 1 }],
        }),
        ['body', 'prices', 1],
        'PolarRequestValidationError',
      ],
      [
        'two static prices',
        () => ({ recurring_interval: 'month', prices: [fixed, { amount_type: 'free' }] }),
        ['body', 'prices'],
        'PolarRequestValidationError',
      ],
      [
        'an unknown meter',
        () => ({
          recurring_interval: 'month',
          prices: [fixed, { amount_type: 'metered_unit', meter_id: randomUUID(), unit_amount: 1 }],
        }),
        ['body', 'prices', 1, 'meter_id'],
        'PolarRequestValidationError',
      ],
      [
        "another organization's meter",
        () => ({
          recurring_interval: 'month',
          prices: [fixed, { amount_type: 'metered_unit', meter_id: otherMeterId, unit_amount: 1 }],
        }),
        ['body', 'prices', 1, 'meter_id'],
        'PolarRequestValidationError',
      ],
      [
        'a trial on a one-time product',
        () => ({ prices: [fixed], trial_interval: 'day', trial_interval_count: 7 }),
        ['body', 'trial_interval'],
        'PolarRequestValidationError',
      ],
    ];
    for (const [name, body, loc, error = 'RequestValidationError'] of creates) {
      it(`create with ${name}`, async () => {
        const before = await writtenRows(api, seller.organizationId);
        const refused = await callV1(api, seller.token, 'POST', '/v1/products/', {
          name: 'Refused product',
          ...body(),
        });
        assert.equal(refused.status, 422, JSON.stringify(refused.body));
        assert.equal(refused.body.error, error);
        assert.deepEqual(refused.body.detail[0].loc, loc);
        assert.deepEqual(await writtenRows(api, seller.organizationId), before);
      });
    }

    it("create with another organization's or a pending media file", async () => {
      const foreign = await insertMediaFile(api, other.organizationId);
      const pending = await insertMediaFile(api, seller.organizationId, { isUploaded: false });
      const before = await writtenRows(api, seller.organizationId);
      const refused = await callV1(api, seller.token, 'POST', '/v1/products/', {
        name: 'Refused product',
        prices: [fixed],
        medias: [foreign, pending],
      });
      assert.equal(refused.status, 422);
      assert.deepEqual(
        refused.body.detail.map((issue: { loc: unknown; msg: string }) => [issue.loc, issue.msg]),
        [
          [['body', 'medias', 0], 'File does not exist or is not yet uploaded.'],
          [['body', 'medias', 1], 'File does not exist or is not yet uploaded.'],
        ],
      );
      assert.deepEqual(await writtenRows(api, seller.organizationId), before);
    });

    it("create with another organization's custom field", async () => {
      const foreign = await insertCustomField(api, other.organizationId);
      const before = await writtenRows(api, seller.organizationId);
      const refused = await callV1(api, seller.token, 'POST', '/v1/products/', {
        name: 'Refused product',
        prices: [fixed],
        attached_custom_fields: [{ custom_field_id: foreign, required: false }],
      });
      assert.equal(refused.status, 422);
      assert.deepEqual(refused.body.detail[0].loc, ['body', 'attached_custom_fields', 0]);
      assert.deepEqual(await writtenRows(api, seller.organizationId), before);
    });

    it("update with another organization's meter or an unknown price id changes nothing", async () => {
      const product = await seller.polar.products.create({
        name: 'Stable plan',
        recurringInterval: 'month',
        prices: [{ amountType: 'fixed', priceAmount: 1000 }],
      });
      const before = await writtenRows(api, seller.organizationId);
      const refused = await callV1(api, seller.token, 'PATCH', `/v1/products/${product.id}`, {
        name: 'Changed plan',
        prices: [
          { id: randomUUID() },
          { amount_type: 'metered_unit', meter_id: otherMeterId, unit_amount: 1 },
        ],
      });
      assert.equal(refused.status, 422);
      assert.deepEqual(
        refused.body.detail.map((issue: { loc: unknown }) => issue.loc),
        [
          ['body', 'prices', 0],
          ['body', 'prices', 1, 'meter_id'],
        ],
      );
      assert.deepEqual(await writtenRows(api, seller.organizationId), before);
      assert.deepEqual(await seller.polar.products.get({ id: product.id }), product);
    });

    it('update benefits with a foreign, unknown or unselectable benefit changes nothing', async () => {
      const product = await seller.polar.products.create({
        name: 'Benefit plan',
        prices: [{ amountType: 'free' }],
      });
      const own = await insertBenefit(api, seller.organizationId);
      const foreign = await insertBenefit(api, other.organizationId);
      const locked = await insertBenefit(api, seller.organizationId, { selectable: false });
      const before = await writtenRows(api, seller.organizationId);
      const refused = await callV1(
        api,
        seller.token,
        'POST',
        `/v1/products/${product.id}/benefits`,
        {
          benefits: [own, foreign, randomUUID(), locked],
        },
      );
      assert.equal(refused.status, 422);
      assert.deepEqual(
        refused.body.detail.map((issue: { loc: unknown; msg: string }) => [issue.loc, issue.msg]),
        [
          [['body', 'benefits', 1], 'Benefit does not exist.'],
          [['body', 'benefits', 2], 'Benefit does not exist.'],
          [['body', 'benefits', 3], 'Benefit is not selectable.'],
        ],
      );
      assert.deepEqual(await writtenRows(api, seller.organizationId), before);
      assert.deepEqual((await seller.polar.products.get({ id: product.id })).benefits, []);
    });
  });

  describe('listing', () => {
    let shop: Seller;
    let products: Record<string, Product>;
    let benefitId: string;

    before(async () => {
      shop = await createSeller(api);
      const shopMeter = await insertMeter(api, shop.organizationId);
      benefitId = await insertBenefit(api, shop.organizationId);
      products = {};
      // Created one after the other, so creation order is the list's default (newest first).
      const creates = {
        sticker: {
          name: 'Sticker pack',
          prices: [{ amountType: 'fixed' as const, priceAmount: 500 }],
        },
        donation: {
          name: 'Donation',
          prices: [{ amountType: 'custom' as const, minimumAmount: 200 }],
          metadata: { campaign: 'spring' },
        },
        newsletter: {
          name: 'Newsletter',
          recurringInterval: 'month' as const,
          prices: [{ amountType: 'free' as const }],
          metadata: { campaign: 'autumn' },
        },
        hosting: {
          name: 'Hosting',
          recurringInterval: 'month' as const,
          prices: [
            { amountType: 'fixed' as const, priceAmount: 2000 },
            { amountType: 'metered_unit' as const, meterId: shopMeter, unitAmount: 1 },
          ],
        },
        stickerArchive: {
          name: 'STICKER archive',
          prices: [{ amountType: 'fixed' as const, priceAmount: 900 }],
        },
      };
      for (const [key, create] of Object.entries(creates)) {
        products[key] = await shop.polar.products.create(create);
      }
      await shop.polar.products.update({
        id: products.stickerArchive?.id as string,
        productUpdate: { isArchived: true },
      });
      await shop.polar.products.updateBenefits({
        id: products.hosting?.id as string,
        productBenefitsUpdate: { benefits: [benefitId] },
      });
    });

    const namesOf = (page: { result: { items: Product[] } }) =>
      page.result.items.map((product) => product.name);

    it('lists newest first by default, with every relation', async () => {
      const page = await shop.polar.products.list({});
      assert.deepEqual(namesOf(page), [
        'STICKER archive',
        'Hosting',
        'Newsletter',
        'Donation',
        'Sticker pack',
      ]);
      assert.equal(page.result.pagination.totalCount, 5);
      const hosting = page.result.items[1];
      assert.equal(hosting?.benefits[0]?.id, benefitId);
      assert.deepEqual(
        hosting?.prices.map((price) => price.amountType),
        ['fixed', 'metered_unit'],
      );
    });

    it('filters by id, name, archive state, recurrence, benefit, metadata and organization', async () => {
      const list = async (request: Parameters<Seller['polar']['products']['list']>[0]) =>
        namesOf(await shop.polar.products.list(request)).sort();
      assert.deepEqual(
        await list({ id: [products.sticker?.id as string, products.hosting?.id as string] }),
        ['Hosting', 'Sticker pack'],
      );
      assert.deepEqual(await list({ query: 'sticker' }), ['STICKER archive', 'Sticker pack']);
      assert.deepEqual(await list({ query: 'ticker p' }), ['Sticker pack']);
      assert.deepEqual(await list({ query: '%' }), []);
      assert.deepEqual(await list({ isArchived: true }), ['STICKER archive']);
      assert.deepEqual(await list({ isArchived: false, isRecurring: false }), [
        'Donation',
        'Sticker pack',
      ]);
      assert.deepEqual(await list({ isRecurring: true }), ['Hosting', 'Newsletter']);
      assert.deepEqual(await list({ benefitId }), ['Hosting']);
      assert.deepEqual(await list({ metadata: { campaign: 'spring' } }), ['Donation']);
      assert.deepEqual(await list({ metadata: { campaign: ['spring', 'autumn'] } }), [
        'Donation',
        'Newsletter',
      ]);
      assert.deepEqual(await list({ organizationId: shop.organizationId, query: 'Hosting' }), [
        'Hosting',
      ]);
      assert.deepEqual(await list({ organizationId: seller.organizationId }), []);
    });

    it('sorts by name, price amount type and price amount', async () => {
      assert.deepEqual(namesOf(await shop.polar.products.list({ sorting: ['name'] })), [
        'Donation',
        'Hosting',
        'Newsletter',
        'STICKER archive',
        'Sticker pack',
      ]);
      assert.deepEqual(
        namesOf(await shop.polar.products.list({ sorting: ['-price_amount'], isArchived: false })),
        ['Hosting', 'Sticker pack', 'Donation', 'Newsletter'],
      );
      assert.deepEqual(
        namesOf(
          await shop.polar.products.list({
            sorting: ['price_amount_type', 'name'],
            isArchived: false,
          }),
        ),
        ['Newsletter', 'Donation', 'Hosting', 'Sticker pack'],
      );
      const refused = await callV1(api, shop.token, 'GET', '/v1/products/?sorting=price');
      assert.equal(refused.status, 422);
      assert.deepEqual(refused.body.detail[0].loc, ['query', 'sorting']);
    });

    it('pages through the list with page.next()', async () => {
      const first = await shop.polar.products.list({ limit: 2, sorting: ['created_at'] });
      assert.equal(first.result.pagination.maxPage, 3);
      const seen = namesOf(first);
      let page = await first.next();
      while (page) {
        seen.push(...namesOf(page));
        page = await page.next();
      }
      assert.deepEqual(seen, [
        'Sticker pack',
        'Donation',
        'Newsletter',
        'Hosting',
        'STICKER archive',
      ]);
    });

    it('never lists archived prices', async () => {
      const hosting = products.hosting as Product;
      const metered = hosting.prices.find((price) => price.amountType === 'metered_unit');
      await shop.polar.products.update({
        id: hosting.id,
        productUpdate: { prices: [{ id: metered?.id as string }, { amountType: 'free' }] },
      });
      const [listed] = (await shop.polar.products.list({ id: hosting.id })).result.items;
      assert.deepEqual(
        listed?.prices.map((price) => [price.amountType, price.isArchived]),
        [
          ['free', false],
          ['metered_unit', false],
        ],
      );
      const archived = await api.orm.em.fork().find(ProductPrice, {
        product: hosting.id,
        isArchived: true,
      });
      assert.deepEqual(
        archived.map((price) => price.amountType),
        ['fixed'],
      );
    });
  });
});
