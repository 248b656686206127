import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import {
  callV1,
  createSeller,
  type Seller,
  startCommerceApi,
  type TestApi,
} from '../../commerce/testing.ts';
import { Customer, Product, User } from '../../db/entities/index.ts';
import { findUnstorableText } from './input-sanity.ts';

const nul = '\u0000';
const loneSurrogate = '\ud800';
const longName = 'n'.repeat(10_000);

/**
 * JSON text as an attacker writes it: JSON.stringify keeps a lone surrogate as the escape
 * `\ud800`, which JSON.parse on the server turns back into half a surrogate pair.
 */
const post = (api: TestApi, path: string, body: unknown, token?: string) =>
  fetch(`${api.url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token && { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify(body),
  });

describe('text the database cannot store', () => {
  let api: TestApi;
  let seller: Seller;
  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
  });
  after(() => api.close());

  const usersWith = (email: string) => api.orm.em.fork().count(User, { email });

  describe('unauthenticated sign-up', () => {
    const signUp = (fields: { name: string; email: string }) =>
      post(api, '/api/auth/sign-up/email', { ...fields, password: 'correct horse battery' });
    const email = () => `odd-${randomBytes(5).toString('hex')}@example.com`;

    it('refuses a NUL in the name with 400 VALIDATION_ERROR, creating no account', async () => {
      const address = email();
      const response = await signUp({ name: `Mallory${nul}`, email: address });
      assert.equal(response.status, 400);
      const body = (await response.json()) as { code: string; message: string };
      assert.equal(body.code, 'VALIDATION_ERROR');
      assert.match(body.message, /^body\.name: /);
      assert.equal(await usersWith(address), 0);
    });

    it('refuses a lone surrogate in the email', async () => {
      const address = email();
      const response = await signUp({ name: 'Mallory', email: `${loneSurrogate}${address}` });
      assert.equal(response.status, 400);
      assert.match(((await response.json()) as { message: string }).message, /^body\.email: /);
      assert.equal(await usersWith(`${loneSurrogate}${address}`), 0);
      assert.equal(await usersWith(address), 0);
    });

    it('refuses a name longer than its column', async () => {
      const address = email();
      const response = await signUp({ name: longName, email: address });
      assert.equal(response.status, 400);
      const body = (await response.json()) as { code: string; message: string };
      assert.equal(body.code, 'VALIDATION_ERROR');
      assert.match(body.message, /^body\.name: /);
      assert.equal(await usersWith(address), 0);
    });

    it('refuses an email longer than its column', async () => {
      const address = `${'e'.repeat(300)}@example.com`;
      const response = await signUp({ name: 'Mallory', email: address });
      assert.equal(response.status, 400);
      assert.equal(await usersWith(address), 0);
    });
  });

  describe('/v1 with an organization token', () => {
    const productsOfSeller = () =>
      api.orm.em.fork().count(Product, { organization: seller.organizationId });
    const createProduct = (name: string, metadata: Record<string, string> = {}) =>
      callV1(api, seller.token, 'POST', '/v1/products/', {
        name,
        metadata,
        prices: [{ amount_type: 'fixed', price_amount: 1000 }],
      });

    it('refuses product names with a NUL, a lone surrogate or 10 000 characters: 422, nothing written', async () => {
      for (const name of [`Ebook${nul}`, `Ebook${loneSurrogate}`, longName]) {
        const { status, body } = await createProduct(name);
        assert.equal(status, 422, JSON.stringify(body).slice(0, 200));
        assert.equal(body.error, 'RequestValidationError');
        assert.deepEqual(body.detail[0].loc, ['body', 'name']);
      }
      assert.equal(await productsOfSeller(), 0);
    });

    it('refuses a NUL in an object key, pointing at it', async () => {
      const key = `source${nul}`;
      const { status, body } = await createProduct('Ebook', { [key]: 'newsletter' });
      assert.equal(status, 422);
      assert.deepEqual(body.detail[0].loc, ['body', 'metadata', key]);
      assert.equal(await productsOfSeller(), 0);
    });

    it('refuses a NUL in a query parameter and in a path parameter', async () => {
      const listed = await callV1(api, seller.token, 'GET', '/v1/customers/?email=a%00b');
      assert.equal(listed.status, 422);
      assert.deepEqual(listed.body.detail[0].loc, ['query', 'email']);
      const read = await callV1(api, seller.token, 'GET', '/v1/customers/external/x%00y');
      assert.equal(read.status, 422);
      assert.deepEqual(read.body.detail[0].loc, ['path']);
    });

    it('answers a customer name longer than its column with 422, nothing written', async () => {
      const email = `long-${randomBytes(5).toString('hex')}@example.com`;
      const { status } = await callV1(api, seller.token, 'POST', '/v1/customers/', {
        email,
        name: longName,
      });
      assert.equal(status, 422);
      assert.equal(await api.orm.em.fork().count(Customer, { email }), 0);
    });
  });
});

describe('finding unstorable text in a parsed body', () => {
  it('walks arrays and objects, keys included, and answers where', () => {
    assert.equal(
      findUnstorableText({ a: ['fine', { b: 'also fine' }], n: 1, z: null }, 'body'),
      null,
    );
    assert.deepEqual(findUnstorableText({ a: ['fine', { b: `x${nul}` }] }, 'body'), [
      'body',
      'a',
      1,
      'b',
    ]);
    assert.deepEqual(findUnstorableText({ [`k${loneSurrogate}`]: 1 }, 'query'), [
      'query',
      `k${loneSurrogate}`,
    ]);
    // A surrogate pair is one character, and fine.
    assert.equal(findUnstorableText({ emoji: '\ud83d\ude00' }, 'body'), null);
  });

  it('walks a body nested far deeper than the call stack goes', () => {
    let deep: unknown = nul;
    for (let level = 0; level < 200_000; level++) deep = [deep];
    const loc = findUnstorableText(deep, 'body');
    assert.equal(loc?.length, 200_001);
  });
});
