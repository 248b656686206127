import Router from '@koa/router';
import type { Payload } from '@temporalio/common';
import { JSONToPayload, payloadToJSON } from '@temporalio/common/lib/proto-utils.js';
import type { Middleware } from 'koa';
import { z } from 'zod';
import { authSettings } from '../../accounts/settings.ts';
import { AppError } from '../../core/errors.ts';
import { PayloadDecryptionError, payloadCodec } from '../../temporal/payload-codec.ts';
import type { AppDependencies } from '../dependencies.ts';
import { requireAdminSession } from '../middleware/admin-session.ts';
import { requireOpsToken } from '../middleware/ops-token.ts';
import { parseBody } from '../validation.ts';

/** Temporal's remote codec protocol: payloads in proto JSON, metadata values and data base64. */
const codecRequest = z.object({
  payloads: z.array(
    z.object({
      metadata: z.record(z.string(), z.base64()).nullish(),
      data: z.base64().nullish(),
    }),
  ),
});

/**
 * The codec server of the Temporal Web UI and CLI (`TEMPORAL_CODEC_ENDPOINT`,
 * `temporal --codec-endpoint`): POST /encode and /decode with `{payloads: [...]}`, through the
 * workers' own codec. Decoding shows what the payloads hold (reset links among them), so it
 * answers only the operations token or a signed-in admin, and lets only the Web UI's origin
 * (TEMPORAL_UI_URL) call it from a browser.
 */
export function temporalCodecRoutes({ config, orm }: AppDependencies): Router {
  const router = new Router({ prefix: '/api/ops/temporal-codec' });
  const codec = payloadCodec(config.temporal.payloadKeys);
  const settings = authSettings(config);
  const opsToken = requireOpsToken(config.opsToken);
  const uiOrigin = config.temporal.uiUrl && new URL(config.temporal.uiUrl).origin;

  /** CORS for the Web UI alone, which sends the admin's session cookie along. */
  const webUiCors: Middleware = async (ctx, next) => {
    ctx.vary('Origin');
    const fromUi = uiOrigin !== undefined && ctx.get('origin') === uiOrigin;
    if (fromUi) {
      ctx.set('Access-Control-Allow-Origin', uiOrigin);
      ctx.set('Access-Control-Allow-Credentials', 'true');
    }
    if (ctx.method !== 'OPTIONS') return next();
    if (!fromUi)
      throw new AppError('forbidden', 'FORBIDDEN', 'Cross-origin calls come from the Web UI only');
    ctx.set('Access-Control-Allow-Methods', 'POST');
    ctx.set('Access-Control-Allow-Headers', 'Authorization, Content-Type, X-Namespace');
    ctx.set('Access-Control-Max-Age', '600');
    ctx.status = 204;
  };

  /** The operations token as a bearer token (the Temporal CLI's), or else an admin session. */
  const adminSession = requireAdminSession(
    orm,
    settings,
    'Only admins may encode and decode workflow payloads',
  );
  const requireOperator: Middleware = (ctx, next) =>
    ctx.get('authorization') ? opsToken(ctx, next) : adminSession(ctx, next);

  router.use(webUiCors, requireOperator);
  for (const [path, transform] of [
    ['/encode', (payloads: Payload[]) => codec.encode(payloads)],
    ['/decode', (payloads: Payload[]) => codec.decode(payloads)],
  ] as const) {
    // A preflight is answered by webUiCors; the router runs its middleware for known routes only.
    router.options(path, () => {});
    router.post(path, async (ctx) => {
      const { payloads } = parseBody(ctx, codecRequest);
      try {
        const transformed = await transform(payloads.map(JSONToPayload));
        ctx.body = { payloads: transformed.map(payloadToJSON) };
      } catch (error) {
        if (!(error instanceof PayloadDecryptionError)) throw error;
        throw new AppError('invalid', 'INVALID_PAYLOAD', error.message);
      }
    });
  }
  return router;
}
