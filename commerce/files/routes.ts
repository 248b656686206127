import Router from '@koa/router';
import type { Context } from 'koa';
import { authSettings } from '../../accounts/settings.ts';
import type { AppDependencies } from '../../api/dependencies.ts';
import { parseBody } from '../../api/validation.ts';
import { invalidField } from '../../core/errors.ts';
import { isUuid } from '../../db/ids.ts';
import { notPermitted, resourceNotFound } from '../errors.ts';
import { callerOf, scope } from '../http/caller.ts';
import { idsParameter, listParameters, listRoute, pageParameters } from '../http/listing.ts';
import { publicRateLimit } from '../http/rate-limits.ts';
import { parseCreateBody, readIdParam } from '../http/request.ts';
import {
  fileCreateInput,
  fileUpdateInput,
  fileUploadCompletedInput,
  fileUploadWire,
  fileWire,
} from './schemas.ts';
import {
  completeUpload,
  createFile,
  deleteFile,
  fileLimits,
  fileStorage,
  listFiles,
  readPartGrant,
  readPublicFile,
  updateFile,
  uploadPart,
} from './service.ts';

/** The query of the file list (documented by files:list). */
export const fileListParameters = listParameters({
  page: pageParameters,
  ids: idsParameter('ids'),
  organizationIds: idsParameter('organization_id'),
});

/**
 * /v1/files: Polar's upload flow. `POST /` plans a multipart upload and answers a signed URL per
 * part; the client PUTs each part's bytes there (`/uploads/<grant>`, no token: the URL is the
 * grant) and completes with `POST /{id}/uploaded`. Product media and avatars are then public
 * at `/public/<id>/<name>`; downloadables only reach customers through their benefit.
 */
export function fileRoutes(dependencies: AppDependencies): Router {
  const { orm, config } = dependencies;
  const router = new Router({ prefix: '/v1/files' });
  const limit = publicRateLimit(dependencies);
  const storage = fileStorage(config.files);
  const { secret } = authSettings(config);
  const limits = fileLimits(config.files);
  const { publicUrl } = config.api;

  router.get(
    '/',
    scope('files:read'),
    listRoute({
      query: fileListParameters,
      list: (caller, query) => listFiles(orm.em, caller.organizationId, query),
      serialize: (files) => files.map((file) => fileWire(file, publicUrl)),
    }),
  );

  router.post('/', scope('files:write'), async (ctx) => {
    const caller = callerOf(ctx);
    const input = parseCreateBody(ctx, fileCreateInput, caller);
    const { file, uploadId, parts } = await createFile(
      orm.em,
      storage,
      caller.organizationId,
      input,
      limits,
      secret,
      publicUrl,
    );
    ctx.status = 201;
    ctx.body = fileUploadWire(file, { id: uploadId, parts });
  });

  router.post('/:id/uploaded', scope('files:write'), async (ctx) => {
    const id = readIdParam(ctx);
    const input = parseBody(ctx, fileUploadCompletedInput);
    const file = await completeUpload(orm.em, storage, callerOf(ctx).organizationId, id, input);
    ctx.body = fileWire(file, publicUrl);
  });

  router.patch('/:id', scope('files:write'), async (ctx) => {
    const id = readIdParam(ctx);
    const input = parseBody(ctx, fileUpdateInput);
    const file = await updateFile(orm.em, callerOf(ctx).organizationId, id, input);
    ctx.body = fileWire(file, publicUrl);
  });

  router.delete('/:id', scope('files:write'), async (ctx) => {
    const id = readIdParam(ctx);
    await deleteFile(orm.em, storage, callerOf(ctx).organizationId, id);
    ctx.status = 204;
  });

  // Browsers upload straight from other origins, as to S3; the URL itself is the credential.
  router.options('/uploads/:grant', (ctx) => {
    allowAnyOrigin(ctx);
    ctx.set('Access-Control-Allow-Methods', 'PUT');
    ctx.set('Access-Control-Allow-Headers', 'Content-Type');
    ctx.set('Access-Control-Max-Age', '3600');
    ctx.status = 204;
  });

  router.put('/uploads/:grant', limit('fileUpload'), async (ctx) => {
    allowAnyOrigin(ctx);
    const grant = readPartGrant(secret, ctx.params.grant ?? '');
    if (!grant) throw notPermitted('The upload URL is invalid or has expired.');
    const { number, chunkStart, chunkEnd } = grant.part;
    const declared = ctx.get('content-length');
    if (declared && Number(declared) !== chunkEnd - chunkStart) {
      // The body is left unread: the connection cannot carry another request.
      ctx.set('Connection', 'close');
      throw invalidField(['body'], `Part ${number} must be ${chunkEnd - chunkStart} bytes.`);
    }
    const { etag } = await uploadPart(orm.em, storage, grant, ctx.req);
    ctx.set('ETag', etag);
    ctx.status = 200;
    ctx.body = '';
  });

  router.get('/public/:id/:name', limit('download'), async (ctx) => {
    const id = ctx.params.id ?? '';
    if (!isUuid(id)) throw resourceNotFound('File not found');
    const { file, size, stream } = await readPublicFile(orm.em, storage, id);
    ctx.type = file.mimeType;
    ctx.length = size;
    if (file.checksumEtag) ctx.set('ETag', file.checksumEtag);
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.set('Content-Disposition', `inline; filename*=UTF-8''${encodeURIComponent(file.name)}`);
    // An SVG is a document: served from the API's origin it must not run scripts there.
    ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox");
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.body = stream;
  });

  return router;
}

function allowAnyOrigin(ctx: Context) {
  ctx.set('Access-Control-Allow-Origin', '*');
  ctx.set('Access-Control-Expose-Headers', 'ETag');
}
