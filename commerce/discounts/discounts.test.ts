import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Discount } from '@polar-sh/sdk/models/components/discount.js';
import { HTTPValidationError } from '@polar-sh/sdk/models/errors/httpvalidationerror.js';
import { ResourceNotFound } from '@polar-sh/sdk/models/errors/resourcenotfound.js';
import { Discount as DiscountRow, Product } from '../../db/entities/index.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';

describe('discounts (/v1/discounts)', () => {
  let api: TestApi;
  let seller: Seller;
  let other: Seller;
  let productId: string;
  let otherProductId: string;

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
    other = await createSeller(api);
    // Products come straight from the database: only their ids and names matter here.
    const em = api.orm.em.fork();
    const product = em.create(Product, {
      organization: seller.organizationId,
      name: 'Pro plan',
      recurringInterval: 'month',
    });
    const theirs = em.create(Product, { organization: other.organizationId, name: 'Their plan' });
    await em.flush();
    productId = product.id;
    otherProductId = theirs.id;
  });
  after(() => api.close());

  const liveRows = (organizationId: string) =>
    api.orm.em.fork().count(DiscountRow, { organization: organizationId, deletedAt: null });
  const createRaw = (body: Record<string, unknown>) =>
    callV1(api, seller.token, 'POST', '/v1/discounts/', body);
  const locOf = (error: unknown) => {
    assert.ok(error instanceof HTTPValidationError, String(error));
    return error.detail?.[0]?.loc;
  };

  it('creates each variant and reads it back', async () => {
    const fixedOnce = await seller.polar.discounts.create({
      name: 'Five off',
      type: 'fixed',
      amount: 500,
      currency: 'usd',
      duration: 'once',
      code: 'FIVEOFF',
    });
    assert.equal(fixedOnce.type, 'fixed');
    assert.ok('amount' in fixedOnce && fixedOnce.amount === 500 && fixedOnce.currency === 'usd');
    assert.equal(fixedOnce.code, 'FIVEOFF');
    assert.equal(fixedOnce.redemptionsCount, 0);
    assert.deepEqual(fixedOnce.products, []);
    assert.equal(fixedOnce.modifiedAt, null);

    const fixedRepeating = await seller.polar.discounts.create({
      name: 'Two off for three months',
      type: 'fixed',
      amount: 200,
      duration: 'repeating',
      durationInMonths: 3,
    });
    assert.ok('durationInMonths' in fixedRepeating && fixedRepeating.durationInMonths === 3);
    assert.equal(fixedRepeating.code, null);

    const percentForever = await seller.polar.discounts.create({
      name: 'Quarter off',
      type: 'percentage',
      basisPoints: 2500,
      duration: 'forever',
      startsAt: new Date('2025-01-01T00:00:00Z'),
      endsAt: new Date('2035-01-01T00:00:00Z'),
      maxRedemptions: 100,
      metadata: { campaign: 'launch' },
    });
    assert.ok('basisPoints' in percentForever && percentForever.basisPoints === 2500);
    assert.equal(percentForever.startsAt?.toISOString(), '2025-01-01T00:00:00.000Z');
    assert.equal(percentForever.maxRedemptions, 100);
    assert.deepEqual(percentForever.metadata, { campaign: 'launch' });

    const percentRepeating = await seller.polar.discounts.create({
      name: 'Half off for a year',
      type: 'percentage',
      basisPoints: 5000,
      duration: 'repeating',
      durationInMonths: 12,
      products: [productId],
    });
    assert.deepEqual(
      percentRepeating.products.map((product) => [product.id, product.name]),
      [[productId, 'Pro plan']],
    );

    const created: Discount[] = [fixedOnce, fixedRepeating, percentForever, percentRepeating];
    for (const discount of created) {
      assert.deepEqual(await seller.polar.discounts.get({ id: discount.id }), discount);
    }
    // Each variant carries only its own keys: the SDK tells them apart by these.
    const wire = async (id: string) =>
      (await callV1(api, seller.token, 'GET', `/v1/discounts/${id}`)).body;
    const once = await wire(fixedOnce.id);
    assert.ok(!('duration_in_months' in once) && !('basis_points' in once));
    const forever = await wire(percentForever.id);
    assert.ok(!('amount' in forever) && !('currency' in forever));
    assert.ok(!('duration_in_months' in forever));
    assert.equal((await wire(percentRepeating.id)).duration_in_months, 12);
  });

  it('updates a discount, ignoring the currency the SDK always sends', async () => {
    const discount = await seller.polar.discounts.create({
      name: 'Spring',
      type: 'percentage',
      basisPoints: 1000,
      duration: 'once',
      code: 'SPRING',
    });
    const updated = await seller.polar.discounts.update({
      id: discount.id,
      discountUpdate: {
        name: 'Spring sale',
        basisPoints: 1500,
        duration: 'repeating',
        durationInMonths: 2,
        maxRedemptions: 10,
        products: [productId],
      },
    });
    assert.equal(updated.name, 'Spring sale');
    assert.ok('basisPoints' in updated && updated.basisPoints === 1500);
    assert.ok('durationInMonths' in updated && updated.durationInMonths === 2);
    assert.equal(updated.maxRedemptions, 10);
    assert.equal(updated.code, 'SPRING');
    assert.deepEqual(
      updated.products.map((product) => product.id),
      [productId],
    );
    assert.ok(updated.modifiedAt instanceof Date);

    // Switching to a fixed amount, back to once, clearing the code and the restriction.
    const switched = await seller.polar.discounts.update({
      id: discount.id,
      discountUpdate: { type: 'fixed', amount: 300, duration: 'once', code: null, products: [] },
    });
    assert.equal(switched.type, 'fixed');
    assert.ok('amount' in switched && switched.amount === 300 && switched.currency === 'usd');
    assert.ok(!('durationInMonths' in switched));
    assert.equal(switched.code, null);
    assert.deepEqual(switched.products, []);

    await assert.rejects(
      seller.polar.discounts.update({
        id: discount.id,
        discountUpdate: { duration: 'repeating' },
      }),
      (error) => {
        assert.deepEqual(locOf(error), ['body', 'duration_in_months']);
        return true;
      },
    );
    await assert.rejects(
      seller.polar.discounts.update({ id: discount.id, discountUpdate: { type: 'percentage' } }),
      (error) => {
        assert.deepEqual(locOf(error), ['body', 'basis_points']);
        return true;
      },
    );
    const unchanged = await seller.polar.discounts.get({ id: discount.id });
    assert.equal(unchanged.duration, 'once');
    assert.equal(unchanged.type, 'fixed');
  });

  it('refuses changing what a redeemed discount takes off', async () => {
    const discount = await seller.polar.discounts.create({
      name: 'Redeemed',
      type: 'percentage',
      basisPoints: 2000,
      duration: 'forever',
    });
    await api.orm.em.fork().nativeUpdate(DiscountRow, { id: discount.id }, { redemptionsCount: 1 });
    for (const [change, field] of [
      [{ basisPoints: 2100 }, 'basis_points'],
      [{ type: 'fixed', amount: 100 }, 'type'],
    ] as const) {
      await assert.rejects(
        seller.polar.discounts.update({ id: discount.id, discountUpdate: change }),
        (error) => {
          assert.deepEqual(locOf(error), ['body', field]);
          return true;
        },
      );
    }
    // The same amount, or other fields, may still be sent.
    const renamed = await seller.polar.discounts.update({
      id: discount.id,
      discountUpdate: { name: 'Still redeemed', basisPoints: 2000 },
    });
    assert.equal(renamed.name, 'Still redeemed');
    assert.equal(renamed.redemptionsCount, 1);
    assert.ok('basisPoints' in renamed && renamed.basisPoints === 2000);
  });

  it('lists with a name or code query and sorting', async () => {
    const newestFirst = await seller.polar.discounts.list({ limit: 100 });
    const names = newestFirst.result.items.map((discount) => discount.name);
    assert.equal(names[0], 'Still redeemed');
    assert.equal(names.at(-1), 'Five off');
    assert.equal(newestFirst.result.pagination.totalCount, names.length);

    const byCode = await seller.polar.discounts.list({ query: 'fiveof' });
    assert.deepEqual(
      byCode.result.items.map((discount) => discount.name),
      ['Five off'],
    );
    const byName = await seller.polar.discounts.list({ query: 'OFF', sorting: ['name'] });
    assert.deepEqual(
      byName.result.items.map((discount) => discount.name),
      ['Five off', 'Half off for a year', 'Quarter off', 'Two off for three months'],
    );
    const byRedemptions = await seller.polar.discounts.list({
      sorting: ['-redemptions_count', 'name'],
      limit: 2,
    });
    assert.deepEqual(
      byRedemptions.result.items.map((discount) => discount.name),
      ['Still redeemed', 'Five off'],
    );
    assert.equal(byRedemptions.result.pagination.maxPage, Math.ceil(names.length / 2));

    const foreign = await seller.polar.discounts.list({ organizationId: other.organizationId });
    assert.equal(foreign.result.items.length, 0);
    const badSort = await callV1(api, seller.token, 'GET', '/v1/discounts/?sorting=amount');
    assert.equal(badSort.status, 422);
  });

  it('keeps codes unique ignoring case, and frees a code on delete', async () => {
    const summer = await seller.polar.discounts.create({
      name: 'Summer',
      type: 'percentage',
      basisPoints: 1000,
      duration: 'once',
      code: 'Summer25',
    });
    await assert.rejects(
      seller.polar.discounts.create({
        name: 'Summer again',
        type: 'fixed',
        amount: 100,
        duration: 'once',
        code: 'SUMMER25',
      }),
      (error) => {
        assert.deepEqual(locOf(error), ['body', 'code']);
        return true;
      },
    );
    const winter = await seller.polar.discounts.create({
      name: 'Winter',
      type: 'percentage',
      basisPoints: 1000,
      duration: 'once',
      code: 'winter25',
    });
    await assert.rejects(
      seller.polar.discounts.update({ id: winter.id, discountUpdate: { code: 'summer25' } }),
      (error) => {
        assert.deepEqual(locOf(error), ['body', 'code']);
        return true;
      },
    );
    // Another organization may use the same code.
    await other.polar.discounts.create({
      name: 'Theirs',
      type: 'percentage',
      basisPoints: 500,
      duration: 'once',
      code: 'SUMMER25',
    });

    const deleted = await callV1(api, seller.token, 'DELETE', `/v1/discounts/${summer.id}`);
    assert.equal(deleted.status, 204);
    assert.equal(deleted.body, null);
    await assert.rejects(seller.polar.discounts.get({ id: summer.id }), ResourceNotFound);
    const reused = await seller.polar.discounts.update({
      id: winter.id,
      discountUpdate: { code: 'SUMMER25' },
    });
    assert.equal(reused.code, 'SUMMER25');
  });

  it('lets one of two concurrent creates with the same code win', async () => {
    const body = { name: 'Race', type: 'percentage', basis_points: 100, duration: 'once' };
    const answers = await Promise.all([
      createRaw({ ...body, code: 'RACE1' }),
      createRaw({ ...body, code: 'race1' }),
    ]);
    assert.deepEqual(answers.map((answer) => answer.status).sort(), [201, 422]);
    const refused = answers.find((answer) => answer.status === 422);
    assert.deepEqual(refused?.body.detail[0].loc, ['body', 'code']);
  });

  it('refuses bad input with 422 at its path and writes nothing', async () => {
    const fixed = { name: 'Bad', type: 'fixed', amount: 100, duration: 'once' };
    const percentage = { name: 'Bad', type: 'percentage', basis_points: 100, duration: 'once' };
    const cases: [body: Record<string, unknown>, loc: (string | number)[], msg?: string][] = [
      [
        { ...percentage, duration: 'repeating' },
        ['body', 'duration_in_months'],
        '`duration_in_months` is required when `duration` is `repeating`.',
      ],
      [
        { ...percentage, duration: 'repeating', duration_in_months: 0 },
        ['body', 'duration_in_months'],
      ],
      [{ ...percentage, basis_points: 10_001 }, ['body', 'basis_points']],
      [{ ...percentage, basis_points: 0 }, ['body', 'basis_points']],
      [{ name: 'Bad', type: 'percentage', duration: 'once' }, ['body', 'basis_points']],
      [{ ...fixed, amount: -1 }, ['body', 'amount']],
      [{ ...fixed, amount: 1.5 }, ['body', 'amount']],
      [{ name: 'Bad', type: 'fixed', duration: 'once' }, ['body', 'amount']],
      [{ ...fixed, currency: 'EUR' }, ['body', 'currency']],
      [{ ...fixed, currency: 'usd ' }, ['body', 'currency']],
      [{ ...fixed, currency: 'eur' }, ['body', 'currency']],
      [
        { ...fixed, code: 'NEW YEAR' },
        ['body', 'code'],
        'Code must contain only alphanumeric characters.',
      ],
      [
        { ...fixed, code: 'AB' },
        ['body', 'code'],
        'Code must be between 3 and 256 characters long.',
      ],
      [{ ...fixed, code: 'A'.repeat(257) }, ['body', 'code']],
      [
        { ...fixed, starts_at: '2026-02-01T00:00:00Z', ends_at: '2026-01-01T00:00:00Z' },
        ['body', 'starts_at'],
        'starts_at must be before ends_at',
      ],
      [{ ...fixed, starts_at: '2026-02-01 00:00:00' }, ['body', 'starts_at']],
      [{ ...fixed, max_redemptions: 0 }, ['body', 'max_redemptions']],
      [{ ...fixed, products: [otherProductId] }, ['body', 'products', 0], 'Product not found.'],
      [{ ...fixed, products: [productId, randomUUID()] }, ['body', 'products', 1]],
      [{ ...fixed, name: '' }, ['body', 'name']],
      [{ ...fixed, type: 'bogo' }, ['body', 'type']],
      [{ ...fixed, organization_id: other.organizationId }, ['body', 'organization_id']],
    ];
    const before = await liveRows(seller.organizationId);
    for (const [body, loc, msg] of cases) {
      const refused = await createRaw(body);
      assert.equal(refused.status, 422, JSON.stringify(body));
      assert.deepEqual(refused.body.detail[0].loc, loc, JSON.stringify(body));
      if (msg) assert.equal(refused.body.detail[0].msg, msg);
    }
    assert.equal(await liveRows(seller.organizationId), before);
  });

  it('refuses bad updates at their path and changes nothing', async () => {
    const discount = await seller.polar.discounts.create({
      name: 'Steady',
      type: 'fixed',
      amount: 700,
      duration: 'once',
      startsAt: new Date('2026-01-01T00:00:00Z'),
    });
    const path = `/v1/discounts/${discount.id}`;
    const cases: [body: Record<string, unknown>, loc: (string | number)[]][] = [
      // Before the stored start.
      [{ ends_at: '2025-12-01T00:00:00Z' }, ['body', 'starts_at']],
      [{ amount: -5, currency: 'usd' }, ['body', 'amount']],
      [{ name: 'Renamed', products: [otherProductId] }, ['body', 'products', 0]],
      [{ name: 'Renamed', code: 'has space' }, ['body', 'code']],
    ];
    for (const [body, loc] of cases) {
      const refused = await callV1(api, seller.token, 'PATCH', path, body);
      assert.equal(refused.status, 422, JSON.stringify(body));
      assert.deepEqual(refused.body.detail[0].loc, loc, JSON.stringify(body));
    }
    assert.deepEqual(await seller.polar.discounts.get({ id: discount.id }), discount);
  });

  it("never reads, changes or deletes another organization's discount", async () => {
    const theirs = await other.polar.discounts.create({
      name: 'Private',
      type: 'fixed',
      amount: 100,
      duration: 'forever',
    });
    await assert.rejects(seller.polar.discounts.get({ id: theirs.id }), ResourceNotFound);
    await assert.rejects(
      seller.polar.discounts.update({ id: theirs.id, discountUpdate: { name: 'Taken over' } }),
      ResourceNotFound,
    );
    await assert.rejects(seller.polar.discounts.delete({ id: theirs.id }), ResourceNotFound);
    assert.equal((await other.polar.discounts.get({ id: theirs.id })).name, 'Private');
    await assert.rejects(seller.polar.discounts.get({ id: randomUUID() }), ResourceNotFound);
    const malformed = await callV1(api, seller.token, 'GET', '/v1/discounts/not-a-uuid');
    assert.deepEqual(malformed.body.detail[0].loc, ['path', 'id']);
  });
});
