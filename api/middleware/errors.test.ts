import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import Koa from 'koa';
import { pino } from 'pino';
import { z } from 'zod';
import { loadRuntimeConfig } from '../../config/env.ts';
import { AppError } from '../../core/errors.ts';
import { type Orm, openOrm } from '../../db/orm.ts';
import { parseQuery } from '../validation.ts';
import { errorResponses } from './errors.ts';

/** A tiny app whose routes fail in each of the ways the middleware must render. */
function failingApp() {
  const app = new Koa();
  app.use(errorResponses(pino({ level: 'silent' })));
  app.use((ctx) => {
    if (ctx.path.endsWith('/crash')) throw new Error('connection string postgres://secret');
    if (ctx.path.endsWith('/forbidden')) throw new AppError('forbidden', 'FORBIDDEN', 'Not yours');
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

  it('logs a failure without the credential its path carries', async () => {
    const lines: { msg: string; path?: string }[] = [];
    const app = new Koa();
    app.use(
      errorResponses(
        pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) }),
      ),
    );
    app.use(() => {
      throw new Error('boom');
    });
    const crashing = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => crashing.once('listening', resolve));
    try {
      const { port } = crashing.address() as AddressInfo;
      const secret = 'polar_c_ThisIsTheCheckoutClientSecret';
      const response = await fetch(
        `http://127.0.0.1:${port}/v1/checkouts/client/${secret}/confirm`,
      );
      assert.equal(response.status, 500);
      const failure = lines.find((line) => line.msg === 'request failed');
      assert.ok(failure?.path?.startsWith('/v1/checkouts/client/'), JSON.stringify(lines));
      assert.equal(JSON.stringify(lines).includes(secret), false);
    } finally {
      crashing.close();
    }
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

describe('values the database refuses', () => {
  let orm: Orm;
  let baseUrl: string;
  let server: ReturnType<Koa['listen']>;
  const logged: { level: number; msg: string; err?: unknown; sqlState?: string }[] = [];

  /** Routes that pass a request's bad value to PostgreSQL, as a schema without a limit would. */
  function databaseApp() {
    const app = new Koa();
    const logger = pino(
      { level: 'info' },
      { write: (line: string) => logged.push(JSON.parse(line)) },
    );
    app.use(errorResponses(logger));
    app.use(async (ctx) => {
      const em = orm.em.fork();
      if (ctx.path.endsWith('/too-long')) {
        await em.transactional(async (tx) => {
          await tx.execute('create temp table short_values (value varchar(3)) on commit drop');
          await tx.execute('insert into short_values values (?)', ['four']);
        });
      }
      // A NUL in metadata: JSON text escapes it, and jsonb refuses the escape.
      if (ctx.path.endsWith('/nul')) {
        await em.execute('select ?::jsonb', [JSON.stringify({ note: 'a\u0000b' })]);
      }
      if (ctx.path.endsWith('/not-an-id')) await em.execute('select ?::uuid', ['nope']);
      ctx.body = { ok: true };
    });
    return app;
  }

  before(async () => {
    const { url } = loadRuntimeConfig().database;
    assert.ok(url, 'DATABASE_URL (npm test sets it)');
    orm = await openOrm(url, 2);
    server = databaseApp().listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.close();
    await orm.close();
  });

  it('answers a value too long for its column, a NUL and a malformed id as bad input', async () => {
    const cases = [
      ['POST', '/v1/products/too-long', 422, '22001'],
      ['GET', '/v1/customers/not-an-id', 422, '22P02'],
      ['POST', '/api/auth/nul', 400, '22P05'],
    ] as const;
    for (const [method, path, status, sqlState] of cases) {
      logged.length = 0;
      const response = await fetch(`${baseUrl}${path}`, { method });
      const text = await response.text();
      assert.equal(response.status, status, `${path}: ${text}`);
      assert.doesNotMatch(text, /short_values|uuid|varying|at .*\.ts/);
      const body = JSON.parse(text);
      if (path.startsWith('/v1/')) {
        assert.equal(body.error, 'RequestValidationError');
        assert.deepEqual(body.detail[0].loc, [method === 'POST' ? 'body' : 'query']);
      } else {
        assert.equal(body.code, 'VALIDATION_ERROR');
      }
      // Logged as a refusal, without the error and its stack; nothing at error level.
      assert.deepEqual(
        logged.map(({ level, msg, err, sqlState: state }) => ({ level, msg, err, state })),
        [{ level: 40, msg: 'value refused by the database', err: undefined, state: sqlState }],
      );
    }
  });
});
