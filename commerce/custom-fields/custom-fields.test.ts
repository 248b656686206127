import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { CustomField } from '@polar-sh/sdk/models/components/customfield.js';
import { HTTPValidationError } from '@polar-sh/sdk/models/errors/httpvalidationerror.js';
import { ResourceNotFound } from '@polar-sh/sdk/models/errors/resourcenotfound.js';
import {
  CustomField as CustomFieldRow,
  Product,
  ProductCustomField,
} from '../../db/entities/index.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';

describe('custom fields (/v1/custom-fields)', () => {
  let api: TestApi;
  let seller: Seller;
  let other: Seller;

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
    other = await createSeller(api);
  });
  after(() => api.close());

  const rowsOf = (organizationId: string) =>
    api.orm.em.fork().count(CustomFieldRow, { organization: organizationId });

  /** A raw create with the seller's token, for input the SDK would not send. */
  const createRaw = (body: Record<string, unknown>) =>
    callV1(api, seller.token, 'POST', '/v1/custom-fields/', body);

  it('creates each type and reads it back, omitting unset properties', async () => {
    const text = await seller.polar.customFields.create({
      type: 'text',
      slug: 'Company-Name',
      name: 'Company name',
      properties: { formLabel: 'Company', textarea: false, minLength: 2, maxLength: 80 },
      metadata: { source: 'tests' },
    });
    assert.equal(text.type, 'text');
    assert.equal(text.slug, 'company-name');
    assert.deepEqual(text.properties, {
      formLabel: 'Company',
      textarea: false,
      minLength: 2,
      maxLength: 80,
    });
    assert.deepEqual(text.metadata, { source: 'tests' });
    assert.equal(text.organizationId, seller.organizationId);
    assert.equal(text.modifiedAt, null);

    const created: CustomField[] = [
      text,
      await seller.polar.customFields.create({
        type: 'number',
        slug: 'seats',
        name: 'Seats',
        properties: { ge: 1, le: 50 },
      }),
      await seller.polar.customFields.create({
        type: 'date',
        slug: 'start_date',
        name: 'Start date',
        properties: { ge: 1_735_689_600 },
      }),
      await seller.polar.customFields.create({
        type: 'checkbox',
        slug: 'terms',
        name: 'Terms',
        properties: { formHelpText: 'You must agree.' },
      }),
      await seller.polar.customFields.create({
        type: 'select',
        slug: 'size',
        name: 'Size',
        properties: {
          options: [
            { value: 's', label: 'Small' },
            { value: 'l', label: 'Large' },
          ],
        },
      }),
    ];
    for (const field of created) {
      assert.deepEqual(await seller.polar.customFields.get({ id: field.id }), field);
    }
    // On the wire an unset property is absent, never null.
    const raw = await callV1(api, seller.token, 'GET', `/v1/custom-fields/${created[1]?.id}`);
    assert.deepEqual(raw.body.properties, { ge: 1, le: 50 });
  });

  it('lists with filters and sorting, by slug unless told otherwise', async () => {
    const all = await seller.polar.customFields.list({});
    assert.deepEqual(
      all.result.items.map((field) => field.slug),
      ['company-name', 'seats', 'size', 'start_date', 'terms'],
    );
    assert.equal(all.result.pagination.totalCount, 5);

    const choices = await seller.polar.customFields.list({ typeFilter: ['select', 'checkbox'] });
    assert.deepEqual(choices.result.items.map((field) => field.slug).sort(), ['size', 'terms']);

    const byQuery = await seller.polar.customFields.list({ query: 'STAR' });
    assert.deepEqual(
      byQuery.result.items.map((field) => field.slug),
      ['start_date'],
    );

    const byName = await seller.polar.customFields.list({ sorting: ['-name'] });
    assert.deepEqual(
      byName.result.items.map((field) => field.name),
      ['Terms', 'Start date', 'Size', 'Seats', 'Company name'],
    );

    const paged = await seller.polar.customFields.list({ sorting: ['type', 'slug'], limit: 2 });
    assert.deepEqual(
      paged.result.items.map((field) => field.type),
      ['checkbox', 'date'],
    );
    assert.equal(paged.result.pagination.maxPage, 3);

    const foreign = await seller.polar.customFields.list({ organizationId: other.organizationId });
    assert.equal(foreign.result.items.length, 0);

    const badSort = await callV1(api, seller.token, 'GET', '/v1/custom-fields?sorting=slugs');
    assert.equal(badSort.status, 422);
    assert.deepEqual(badSort.body.detail[0].loc, ['query', 'sorting']);
  });

  it('updates name, slug and properties of the same type', async () => {
    const field = await seller.polar.customFields.create({
      type: 'number',
      slug: 'employees',
      name: 'Employees',
      properties: { ge: 1 },
    });
    const updated = await seller.polar.customFields.update({
      id: field.id,
      customFieldUpdate: {
        type: 'number',
        slug: 'Team-Size',
        name: 'Team size',
        properties: { le: 500, formPlaceholder: '10' },
      },
    });
    assert.equal(updated.slug, 'team-size');
    assert.equal(updated.name, 'Team size');
    // Properties are replaced whole: `ge` is gone.
    assert.deepEqual(updated.properties, { le: 500, formPlaceholder: '10' });
    assert.ok(updated.modifiedAt instanceof Date);

    const renamedOnly = await seller.polar.customFields.update({
      id: field.id,
      customFieldUpdate: { type: 'number', name: 'Headcount' },
    });
    assert.equal(renamedOnly.slug, 'team-size');
    assert.deepEqual(renamedOnly.properties, { le: 500, formPlaceholder: '10' });
  });

  it("refuses changing a field's type", async () => {
    const field = await seller.polar.customFields.create({
      type: 'checkbox',
      slug: 'newsletter',
      name: 'Newsletter',
      properties: {},
    });
    await assert.rejects(
      seller.polar.customFields.update({
        id: field.id,
        customFieldUpdate: { type: 'text', name: 'Changed' },
      }),
      (error) => {
        assert.ok(error instanceof HTTPValidationError);
        assert.deepEqual(error.detail?.[0]?.loc, ['body', 'type']);
        return true;
      },
    );
    assert.equal((await seller.polar.customFields.get({ id: field.id })).name, 'Newsletter');
  });

  it('keeps slugs unique in an organization, not across organizations', async () => {
    const taken = await createRaw({ type: 'text', slug: 'SEATS', name: 'Again', properties: {} });
    assert.equal(taken.status, 422);
    assert.deepEqual(taken.body.detail[0].loc, ['body', 'slug']);
    assert.equal(taken.body.detail[0].msg, 'Custom field with this slug already exists.');

    const size = (await seller.polar.customFields.list({ query: 'size' })).result.items[0];
    assert.ok(size);
    const renamed = await callV1(api, seller.token, 'PATCH', `/v1/custom-fields/${size.id}`, {
      type: 'select',
      slug: 'seats',
    });
    assert.equal(renamed.status, 422);
    assert.deepEqual(renamed.body.detail[0].loc, ['body', 'slug']);

    const elsewhere = await other.polar.customFields.create({
      type: 'text',
      slug: 'seats',
      name: 'Seats',
      properties: {},
    });
    assert.equal(elsewhere.slug, 'seats');
  });

  it('refuses bad input with 422 at its path and writes nothing', async () => {
    const cases: [body: Record<string, unknown>, loc: (string | number)[]][] = [
      [{ type: 'text', slug: 'with space', name: 'X', properties: {} }, ['body', 'slug']],
      [{ type: 'text', slug: 'ok', name: '', properties: {} }, ['body', 'name']],
      [{ type: 'text', slug: 'ok', name: 'X' }, ['body', 'properties']],
      [{ type: 'colour', slug: 'ok', name: 'X', properties: {} }, ['body', 'type']],
      [
        { type: 'text', slug: 'ok', name: 'X', properties: { min_length: 10, max_length: 5 } },
        ['body', 'properties', 'min_length'],
      ],
      [
        { type: 'text', slug: 'ok', name: 'X', properties: { form_label: null } },
        ['body', 'properties', 'form_label'],
      ],
      [
        { type: 'number', slug: 'ok', name: 'X', properties: { ge: 10, le: 1 } },
        ['body', 'properties', 'ge'],
      ],
      [
        { type: 'date', slug: 'ok', name: 'X', properties: { ge: 1_800_000_000, le: 1 } },
        ['body', 'properties', 'ge'],
      ],
      [
        { type: 'number', slug: 'ok', name: 'X', properties: { ge: 1.5 } },
        ['body', 'properties', 'ge'],
      ],
      [
        { type: 'select', slug: 'ok', name: 'X', properties: { options: [] } },
        ['body', 'properties', 'options'],
      ],
      [
        {
          type: 'select',
          slug: 'ok',
          name: 'X',
          properties: {
            options: [
              { value: 'a', label: 'A' },
              { value: 'a', label: 'Again' },
            ],
          },
        },
        ['body', 'properties', 'options', 1, 'value'],
      ],
      [
        { type: 'text', slug: 'ok', name: 'X', properties: {}, organization_id: randomUUID() },
        ['body', 'organization_id'],
      ],
    ];
    const before = await rowsOf(seller.organizationId);
    for (const [body, loc] of cases) {
      const refused = await createRaw(body);
      assert.equal(refused.status, 422, JSON.stringify(body));
      assert.deepEqual(refused.body.detail[0].loc, loc, JSON.stringify(body));
    }
    assert.equal(await rowsOf(seller.organizationId), before);
  });

  it("never reads, changes or deletes another organization's field", async () => {
    const theirs = await other.polar.customFields.create({
      type: 'text',
      slug: 'private',
      name: 'Private',
      properties: {},
    });
    await assert.rejects(seller.polar.customFields.get({ id: theirs.id }), ResourceNotFound);
    await assert.rejects(
      seller.polar.customFields.update({
        id: theirs.id,
        customFieldUpdate: { type: 'text', name: 'Taken over' },
      }),
      ResourceNotFound,
    );
    await assert.rejects(seller.polar.customFields.delete({ id: theirs.id }), ResourceNotFound);
    assert.equal((await other.polar.customFields.get({ id: theirs.id })).name, 'Private');
    await assert.rejects(seller.polar.customFields.get({ id: randomUUID() }), ResourceNotFound);
  });

  it('deletes a field and detaches it from the products asking for it', async () => {
    const field = await seller.polar.customFields.create({
      type: 'text',
      slug: 'vat-note',
      name: 'VAT note',
      properties: {},
    });
    // The product and its link come straight from the database: the link is what matters here.
    const em = api.orm.em.fork();
    const product = em.create(Product, { organization: seller.organizationId, name: 'Handbook' });
    em.create(ProductCustomField, { product, customField: field.id, order: 0, required: true });
    await em.flush();
    const linksOf = () => api.orm.em.fork().count(ProductCustomField, { product: product.id });
    assert.equal(await linksOf(), 1);

    const deleted = await callV1(api, seller.token, 'DELETE', `/v1/custom-fields/${field.id}`);
    assert.equal(deleted.status, 204);
    assert.equal(deleted.body, null);
    await assert.rejects(seller.polar.customFields.get({ id: field.id }), ResourceNotFound);
    assert.equal(await linksOf(), 0);
    assert.equal(await api.orm.em.fork().count(Product, { id: product.id }), 1);
    // The slug is free again.
    const again = await seller.polar.customFields.create({
      type: 'text',
      slug: 'vat-note',
      name: 'VAT note',
      properties: {},
    });
    assert.notEqual(again.id, field.id);
  });
});
