import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import Router from '@koa/router';
import type { Context } from 'koa';
import { type ApiDescription, openApiDocument } from '../../commerce/http/openapi.ts';
import { publicRateLimit } from '../../commerce/http/rate-limits.ts';
import { commerceOperations } from '../../commerce/operations.ts';
import { projectRoot } from '../../config/env.ts';
import { authOperations } from '../auth/operations.ts';
import type { AppDependencies } from '../dependencies.ts';

const pageDir = join(import.meta.dirname, 'api-reference');
/** Where swagger-ui-dist's files are (served under /docs/assets). */
export const swaggerUiDir = dirname(
  createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'),
);
const { version } = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as {
  version: string;
};

/** The two APIs the reference documents. */
const apis = {
  commerce: {
    title: 'Tollgate commerce API',
    version,
    description:
      "The /v1 commerce API. Paths, methods and snake_case shapes follow Polar's public API v1, " +
      "so Polar's SDKs work against it with their server URL set to this server.",
    envelope: 'commerce',
    operations: commerceOperations,
  },
  auth: {
    title: 'Tollgate auth API',
    version,
    description:
      'The /api/auth accounts API: sign-up and sign-in, sessions, organizations, admin and API ' +
      'keys, wire-compatible with the Better Auth client.',
    envelope: 'auth',
    operations: authOperations,
  },
} satisfies Record<string, ApiDescription>;

/** Bytes served with their type and an ETag, read or built once per process. */
interface Served {
  type: string;
  bytes: Buffer;
  etag: string;
}

const served = (type: string, bytes: Buffer): Served => ({
  type,
  bytes,
  etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`,
});

function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => {
    made ??= { value: make() };
    return made.value;
  };
}

/** The page's own files and the Swagger UI files it loads, by the name under /docs/assets/. */
const assetFiles: Record<string, string> = {
  'reference.js': join(pageDir, 'reference.js'),
  ...Object.fromEntries(
    [
      'swagger-ui.css',
      'swagger-ui-bundle.js',
      'swagger-ui-standalone-preset.js',
      'favicon-32x32.png',
    ].map((name) => [name, join(swaggerUiDir, name)]),
  ),
};

const assets = new Map(
  Object.entries(assetFiles).map(([name, file]) => [
    name,
    once(() => served(extname(name), readFileSync(file))),
  ]),
);

/** Answers `answer`, or 304 when the client holds it; cached by browsers and proxies for `maxAge`. */
function answer(ctx: Context, { type, bytes, etag }: Served, maxAgeSeconds: number) {
  ctx.set('Cache-Control', `public, max-age=${maxAgeSeconds}`);
  ctx.set('ETag', etag);
  if (ctx.get('if-none-match') === etag) {
    ctx.status = 304;
    return;
  }
  ctx.type = type;
  ctx.body = bytes;
}

const documentBytes = (api: ApiDescription) =>
  once(() => served('json', Buffer.from(JSON.stringify(openApiDocument(api)))));

/**
 * The machine-readable contract of both APIs, generated from the zod schemas their routes
 * validate with (commerce/http/openapi.ts), and an interactive reference page (Swagger UI) at
 * /docs. Public, and limited per IP like the other public routes. The documents change only with
 * a deployment: browsers keep them five minutes and then revalidate by ETag.
 */
export function apiReferenceRoutes(dependencies: AppDependencies): Router {
  const router = new Router();
  const limit = publicRateLimit(dependencies)('apiReference');
  const commerceDocument = documentBytes(apis.commerce);
  const authDocument = documentBytes(apis.auth);
  const page = once(() => served('html', readFileSync(join(pageDir, 'index.html'))));

  router.get('/v1/openapi.json', limit, (ctx) => answer(ctx, commerceDocument(), 300));
  router.get('/api/auth/openapi.json', limit, (ctx) => answer(ctx, authDocument(), 300));
  router.get('/docs', limit, (ctx) => answer(ctx, page(), 300));
  router.get('/docs/assets/:name', limit, (ctx) => {
    const asset = assets.get(ctx.params.name as string);
    if (!asset) {
      ctx.status = 404;
      return;
    }
    answer(ctx, asset(), 24 * 60 * 60);
  });
  return router;
}
