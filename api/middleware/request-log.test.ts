import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSeller, type Seller } from '../../commerce/testing.ts';
import { startTestApi } from '../testing.ts';

describe('request log', () => {
  let api: Awaited<ReturnType<typeof startTestApi>>;
  let seller: Seller;
  const logged: unknown[] = [];
  before(async () => {
    api = await startTestApi();
    seller = await createSeller(api);
    // Every line the request log writes, as whoever reads the log file would see it: at info,
    // the level that keeps them (the middleware builds none below it).
    api.logger.level = 'info';
    const info = api.logger.info.bind(api.logger);
    api.logger.info = ((...line: Parameters<typeof info>) => {
      logged.push(line[0]);
      return info(...line);
    }) as typeof info;
  });
  after(() => api.close());

  it('keeps no checkout client secret, signed grant or reset token from request paths', async () => {
    const product = await seller.polar.products.create({
      name: 'Logged',
      prices: [{ amountType: 'fixed', priceAmount: 500 }],
    });
    const { clientSecret } = await seller.polar.checkouts.create({ products: [product.id] });
    const grant = 'eyJhIjoxfQ.c2lnbmF0dXJl';
    const secrets = [clientSecret, grant, 'reset-token-abc'];
    const requests: [string, string][] = [
      ['GET', `/checkout/${clientSecret}`],
      ['GET', `/checkout/${clientSecret}/confirmation`],
      ['GET', `/v1/checkouts/client/${clientSecret}`],
      ['POST', `/V1/Checkouts/Client/${clientSecret}/confirm`],
      ['GET', `/v1/checkout-links/${clientSecret}/redirect`],
      ['GET', `/v1/customer-portal/downloadables/files/${grant}`],
      ['PUT', `/v1/files/uploads/${grant}`],
      ['GET', '/api/auth/reset-password/reset-token-abc'],
    ];
    logged.length = 0;
    for (const [method, path] of requests) {
      await (await fetch(`${api.url}${path}`, { method })).arrayBuffer();
    }
    const paths = logged
      .map((line) => (line as { path?: string }).path)
      .filter((path): path is string => typeof path === 'string');
    assert.equal(paths.length, requests.length, JSON.stringify(paths));
    for (const path of paths) {
      assert.ok(!secrets.some((secret) => path.includes(secret)), path);
      assert.match(path, /\[redacted\]/);
    }
    assert.ok(paths.includes('/v1/checkouts/client/[redacted]'));
    assert.ok(paths.includes('/V1/Checkouts/Client/[redacted]/confirm'));
  });

  it('keeps the paths that hold no secret as they are', async () => {
    logged.length = 0;
    await (await fetch(`${api.url}/v1/checkout-links/${seller.organizationId}`)).arrayBuffer();
    assert.deepEqual(
      logged.map((line) => (line as { path?: string }).path),
      [`/v1/checkout-links/${seller.organizationId}`],
    );
  });
});
