import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import Koa from 'koa';
import { pino } from 'pino';
import { z } from 'zod';
import { ApiError } from '../errors.ts';
import { parseQuery } from '../validation.ts';
import { errorResponses } from './errors.ts';

/** A tiny app whose routes fail in each of the ways the middleware must render. */
function failingApp() {
  const app = new Koa();
  app.use(errorResponses(pino({ level: 'silent' })));
  app.use((ctx) => {
    if (ctx.path.endsWith('/crash')) throw new Error('connection string postgres://secret');
    if (ctx.path.endsWith('/forbidden')) throw new ApiError(403, 'FORBIDDEN', 'Not yours');
    if (ctx.path.endsWith('/validate'))
      parseQuery(ctx, z.object({ limit: z.coerce.number().int().max(100) }));
    ctx.body = { ok: true };
  });
  return app;
}

describe('error responses', () => {
  let baseUrl: string;
  let server: ReturnType<Koa['listen']>;
  before(async () => {
    server = failingApp().listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => server.close());

  it('answers an unexpected error with a bare 500 that leaks nothing', async () => {
    const response = await fetch(`${baseUrl}/api/auth/crash`);
    const text = await response.text();
    assert.equal(response.status, 500);
    assert.deepEqual(JSON.parse(text), {
      code: 'INTERNAL_SERVER_ERROR',
      message: 'Internal server error',
    });
    assert.doesNotMatch(text, /secret|at .*\.ts/);
  });

  it('keeps the status and code of a deliberate error, in the auth envelope', async () => {
    const response = await fetch(`${baseUrl}/api/auth/forbidden`);
    assert.equal(response.status, 403);
    assert.deepEqual(await response.json(), { code: 'FORBIDDEN', message: 'Not yours' });
  });

  it('uses the commerce envelope under /v1', async () => {
    const response = await fetch(`${baseUrl}/v1/products/forbidden`);
    assert.equal(response.status, 403);
    assert.deepEqual(await response.json(), { error: 'FORBIDDEN', detail: 'Not yours' });
  });

  it('answers a validation failure under /api/auth with 400 VALIDATION_ERROR', async () => {
    const response = await fetch(`${baseUrl}/api/auth/validate?limit=abc`);
    const body = (await response.json()) as { code: string; message: string };
    assert.equal(response.status, 400);
    assert.equal(body.code, 'VALIDATION_ERROR');
    assert.match(body.message, /^query\.limit: /);
  });

  it('answers a validation failure under /v1 with 422 and where each bad value was', async () => {
    const response = await fetch(`${baseUrl}/v1/products/validate?limit=1000`);
    const body = (await response.json()) as {
      error: string;
      detail: { loc: unknown[]; type: string }[];
    };
    assert.equal(response.status, 422);
    assert.equal(body.error, 'RequestValidationError');
    assert.deepEqual(body.detail[0]?.loc, ['query', 'limit']);
    assert.equal(body.detail[0]?.type, 'too_big');
  });
});
