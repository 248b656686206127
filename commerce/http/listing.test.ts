import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import Koa, { type Context } from 'koa';
import { RequestValidationError } from '../../core/errors.ts';
import { likePattern, orderBy } from '../../db/listing.ts';
import type { CommerceCaller } from '../caller.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';
import {
  listResource,
  organizationFilterMatches,
  readMetadataFilter,
  readPage,
  readQueryBoolean,
  readQueryIds,
  readSorting,
} from './listing.ts';

const koa = new Koa();

/** Koa's context of a GET request for `url`, its query parsed by Koa itself. */
function contextFor(url: string): Context {
  const request = new IncomingMessage(new Socket());
  request.method = 'GET';
  request.url = url;
  return koa.createContext(request, new ServerResponse(request));
}

/** The issues of the 422 `read` throws. */
function refusal(read: () => unknown) {
  try {
    read();
  } catch (error) {
    assert.ok(error instanceof RequestValidationError, String(error));
    return { kind: error.kind, issues: error.issues };
  }
  assert.fail('expected a 422');
}

describe('list queries', () => {
  describe('readPage', () => {
    const cases: [query: string, page: { page: number; limit: number; offset: number }][] = [
      ['', { page: 1, limit: 10, offset: 0 }],
      ['page=3&limit=20', { page: 3, limit: 20, offset: 40 }],
      ['page=2&limit=500', { page: 2, limit: 100, offset: 100 }],
      ['limit=100', { page: 1, limit: 100, offset: 0 }],
    ];
    for (const [query, page] of cases) {
      it(`reads "${query}" as page ${page.page} of ${page.limit}`, () => {
        assert.deepEqual(readPage(contextFor(`/v1/x?${query}`)), page);
      });
    }

    const refused: [query: string, loc: string[]][] = [
      ['page=0', ['query', 'page']],
      ['page=-1', ['query', 'page']],
      ['page=1.5', ['query', 'page']],
      ['page=two', ['query', 'page']],
      ['page=1e20', ['query', 'page']],
      ['page=1&page=2', ['query', 'page']],
      ['limit=0', ['query', 'limit']],
    ];
    for (const [query, loc] of refused) {
      it(`refuses "${query}" at ${loc.join('.')}`, () => {
        const { issues } = refusal(() => readPage(contextFor(`/v1/x?${query}`)));
        assert.deepEqual(issues[0]?.loc, loc);
      });
    }
  });

  it('counts pages with the limit actually used', () => {
    const page = readPage(contextFor('/v1/x?limit=500'));
    assert.deepEqual(listResource([], 250, page).pagination, { total_count: 250, max_page: 3 });
    assert.deepEqual(listResource([], 0, page).pagination, { total_count: 0, max_page: 0 });
  });

  describe('readSorting', () => {
    const fields = ['created_at', 'name'] as const;

    it('reads repeated criteria in order, "-" meaning descending', () => {
      const ctx = contextFor('/v1/x?sorting=-created_at&sorting=name');
      assert.deepEqual(readSorting(ctx, fields, 'name'), [
        { field: 'created_at', descending: true },
        { field: 'name', descending: false },
      ]);
    });

    it('falls back to the default criterion', () => {
      assert.deepEqual(readSorting(contextFor('/v1/x'), fields, '-created_at'), [
        { field: 'created_at', descending: true },
      ]);
    });

    for (const value of ['price', '-', '', '--name', 'name,created_at']) {
      it(`refuses "${value}" with 422 at query.sorting`, () => {
        const ctx = contextFor(`/v1/x?sorting=name&sorting=${encodeURIComponent(value)}`);
        const { issues } = refusal(() => readSorting(ctx, fields, 'name'));
        assert.deepEqual(issues, [
          { loc: ['query', 'sorting'], msg: 'Invalid sorting criterion.', type: 'enum' },
        ]);
      });
    }

    it('becomes an ORM order with entity property names', () => {
      const criteria = readSorting(contextFor('/v1/x?sorting=-created_at'), fields, 'name');
      assert.deepEqual(orderBy(criteria, { created_at: 'createdAt', name: 'name' }), [
        { createdAt: 'desc' },
      ]);
    });
  });

  describe('filters', () => {
    it('reads a repeated uuid filter and locates a bad value', () => {
      const [first, second] = [randomUUID(), randomUUID()];
      const ctx = contextFor(`/v1/x?product_id=${first}&product_id=${second}`);
      assert.deepEqual(readQueryIds(ctx, 'product_id'), [first, second]);
      assert.deepEqual(readQueryIds(contextFor('/v1/x'), 'product_id'), []);
      const bad = contextFor(`/v1/x?product_id=${first}&product_id=nope`);
      const { issues } = refusal(() => readQueryIds(bad, 'product_id'));
      assert.deepEqual(issues[0]?.loc, ['query', 'product_id', 1]);
    });

    const booleans: [query: string, value: boolean | undefined][] = [
      ['is_archived=true', true],
      ['is_archived=false', false],
      ['', undefined],
    ];
    for (const [query, value] of booleans) {
      it(`reads "${query}" as ${value}`, () => {
        assert.equal(readQueryBoolean(contextFor(`/v1/x?${query}`), 'is_archived'), value);
      });
    }

    it('refuses a boolean that is not true or false', () => {
      const { issues } = refusal(() =>
        readQueryBoolean(contextFor('/v1/x?is_archived=yes'), 'is_archived'),
      );
      assert.deepEqual(issues[0]?.loc, ['query', 'is_archived', 0]);
    });

    it('reads metadata filters in deepObject style, as the SDK encodes them', () => {
      const sdkQuery =
        'metadata%5Bplan%5D=gold&metadata%5Bplan%5D=pro&metadata%5Bseats%5D=3&metadata=x&page=1';
      assert.deepEqual(readMetadataFilter(contextFor(`/v1/x?${sdkQuery}`)), {
        plan: ['gold', 'pro'],
        seats: ['3'],
      });
      const plain = contextFor('/v1/x?metadata[a]b]=1&metadata[]=2&metadatas[c]=3');
      assert.deepEqual(readMetadataFilter(plain), { 'a]b': ['1'] });
    });

    const searches: [query: string, pattern: string][] = [
      ['gold', '%gold%'],
      ['50%', '%50\\%%'],
      ['snake_case', '%snake\\_case%'],
      ['C:\\path', '%C:\\\\path%'],
    ];
    for (const [query, pattern] of searches) {
      it(`searches "${query}" with the LIKE pattern ${pattern}`, () => {
        assert.equal(likePattern(query), pattern);
      });
    }

    it('matches the organization filter against the caller only', () => {
      const caller: CommerceCaller = {
        kind: 'organization_token',
        organizationId: randomUUID(),
        tokenId: randomUUID(),
        scopes: new Set(),
      };
      const other = randomUUID();
      const matches = (query: string) =>
        organizationFilterMatches(contextFor(`/v1/x?${query}`), caller);
      assert.equal(matches(''), true);
      assert.equal(matches(`organization_id=${caller.organizationId}`), true);
      assert.equal(
        matches(`organization_id=${other}&organization_id=${caller.organizationId}`),
        true,
      );
      assert.equal(matches(`organization_id=${other}`), false);
    });
  });

  describe('over HTTP', () => {
    let api: TestApi;
    let seller: Seller;

    before(async () => {
      api = await startCommerceApi();
      seller = await createSeller(api);
    });
    after(() => api.close());

    it('answers page=0 with 422 at query.page in Polar envelope', async () => {
      const page = await callV1(api, seller.token, 'GET', '/v1/organizations/?page=0');
      assert.equal(page.status, 422);
      assert.equal(page.body.error, 'RequestValidationError');
      assert.deepEqual(page.body.detail[0].loc, ['query', 'page']);
    });

    it('clamps a large limit instead of refusing it', async () => {
      const page = await seller.polar.organizations.list({ limit: 500 });
      assert.equal(page.result.items.length, 1);
      assert.deepEqual(page.result.pagination, { totalCount: 1, maxPage: 1 });
    });
  });
});
