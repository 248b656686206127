import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import { routePrefixes, routesFor } from './route-prefixes.ts';

/** An app answering with the router's routes, `fallback` for every path they leave. */
async function answerOf(router: Router, path: string, method = 'GET') {
  const app = new Koa();
  app.use(routesFor(router));
  app.use((ctx) => {
    ctx.body = 'fallback';
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  try {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, { method });
    return await response.text();
  } finally {
    server.close();
  }
}

function areaRouter() {
  const area = new Router({ prefix: '/v1/Orders' });
  area.use((ctx, next) => {
    ctx.set('x-area', 'orders');
    return next();
  });
  area.get('/', (ctx) => {
    ctx.body = 'list';
  });
  area.get('/:id', (ctx) => {
    ctx.body = `order ${ctx.params.id}`;
  });
  const router = new Router();
  router.use(area.routes());
  router.post('/v1/files{/:kind}/upload', (ctx) => {
    ctx.body = 'upload';
  });
  return router;
}

describe('routePrefixes', () => {
  it('is the literal start of each route, lowercased, without middleware', () => {
    assert.deepEqual(routePrefixes(areaRouter()).sort(), [
      '/v1/files',
      '/v1/orders',
      '/v1/orders/',
    ]);
  });

  it('is everything for a RegExp route', () => {
    const router = new Router();
    router.get(/^\/anything/, (ctx) => {
      ctx.body = 'any';
    });
    assert.deepEqual(routePrefixes(router), ['']);
  });
});

describe('routesFor', () => {
  it('answers what the router answers, whatever the letter case', async () => {
    assert.equal(await answerOf(areaRouter(), '/v1/orders'), 'list');
    assert.equal(await answerOf(areaRouter(), '/V1/ORDERS/o_1'), 'order o_1');
    assert.equal(await answerOf(areaRouter(), '/v1/files/upload', 'POST'), 'upload');
  });

  it('passes on paths none of its routes matches, and known paths with another method', async () => {
    assert.equal(await answerOf(areaRouter(), '/v1/customers/'), 'fallback');
    assert.equal(await answerOf(areaRouter(), '/v1/order'), 'fallback');
    assert.equal(await answerOf(areaRouter(), '/v1/orders/', 'DELETE'), 'fallback');
  });
});
