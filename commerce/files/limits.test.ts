import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { opsSessionToken } from '../../api/routes/ops-testing.ts';
import { startApiServer } from '../../api/server.ts';
import { loadRuntimeConfig } from '../../config/env.ts';
import { StoredFile } from '../../db/entities/index.ts';
import { findFreePort } from '../../devstack/supervisor.ts';
import type { purgeExpiredRecords } from '../../workflows/purge-expired-records.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';
import { uploadLifetimeMs } from './service.ts';

const tebibyte = 1024 ** 4;
const hour = 60 * 60 * 1000;

/** Polar's `FileCreate` of `size` bytes in one part. */
const fileCreate = (size: number, service = 'downloadable', mimeType = 'application/zip') => ({
  service,
  name: 'archive.zip',
  mime_type: mimeType,
  size,
  upload: { parts: [{ number: 1, chunk_start: 0, chunk_end: size }] },
});

describe('file size limits', () => {
  let api: TestApi;
  /** An API whose organizations may store 100 bytes, downloadables at most 80 each. */
  let small: Awaited<ReturnType<typeof startApiServer>>;
  let seller: Seller;

  before(async () => {
    const config = loadRuntimeConfig();
    [api, small] = await Promise.all([
      startCommerceApi(),
      startApiServer(
        {
          ...config,
          files: { ...config.files, maxDownloadableBytes: 80, organizationMaxBytes: 100 },
        },
        { host: '127.0.0.1', port: 0 },
      ),
    ]);
    seller = await createSeller(api);
  });
  after(() => Promise.all([api.close(), small.close()]));

  const filesOf = (organizationId: string) =>
    api.orm.em.fork().count(StoredFile, { organization: organizationId });

  it('refuses a 10 TiB downloadable with 422 at creation, writing nothing', async () => {
    const { status, body } = await callV1(
      api,
      seller.token,
      'POST',
      '/v1/files/',
      fileCreate(10 * tebibyte),
    );
    assert.equal(status, 422);
    assert.equal(body.error, 'PolarRequestValidationError');
    assert.deepEqual(body.detail[0].loc, ['body', 'size']);
    assert.match(body.detail[0].msg, /at most 1\.0 GB/);
    assert.equal(await filesOf(seller.organizationId), 0);
  });

  it('holds product images to 10 MB and avatars to 1 MB', async () => {
    const megabyte = 1024 * 1024;
    for (const [service, size] of [
      ['product_media', 10 * megabyte + 1],
      ['organization_avatar', megabyte + 1],
    ] as const) {
      const { status, body } = await callV1(
        api,
        seller.token,
        'POST',
        '/v1/files/',
        fileCreate(size, service, 'image/png'),
      );
      assert.equal(status, 422, service);
      assert.deepEqual(body.detail[0].loc, ['body', 'size']);
    }
    assert.equal(await filesOf(seller.organizationId), 0);
  });

  it('takes the downloadable limit from TOLLGATE_FILES_MAX_BYTES', async () => {
    const owner = await createSeller(small);
    assert.equal(
      (await callV1(small, owner.token, 'POST', '/v1/files/', fileCreate(81))).status,
      422,
    );
    assert.equal(
      (await callV1(small, owner.token, 'POST', '/v1/files/', fileCreate(80))).status,
      201,
    );
  });

  it("refuses a file beyond the organization's storage, even when two race for the room", async () => {
    const owner = await createSeller(small);
    const create = (size: number) =>
      callV1(small, owner.token, 'POST', '/v1/files/', fileCreate(size));
    // Two creations at once for 60 bytes each, with room for 100: one is refused.
    const raced = await Promise.all([create(60), create(60)]);
    assert.deepEqual(raced.map(({ status }) => status).sort(), [201, 422]);
    const refused = raced.find(({ status }) => status === 422);
    assert.deepEqual(refused?.body.detail[0].loc, ['body', 'size']);
    assert.equal(refused?.body.detail[0].type, 'storage_limit');
    assert.equal(await filesOf(owner.organizationId), 1);

    // Files still uploading count; a deleted one gives its room back.
    assert.equal((await create(41)).status, 422);
    assert.equal((await create(40)).status, 201);
    const first = raced.find(({ status }) => status === 201)?.body.id as string;
    assert.equal((await callV1(small, owner.token, 'DELETE', `/v1/files/${first}`)).status, 204);
    assert.equal((await create(60)).status, 201);
    // Another organization has room of its own.
    const other = await createSeller(small);
    assert.equal(
      (await callV1(small, other.token, 'POST', '/v1/files/', fileCreate(80))).status,
      201,
    );
  });
});

describe('abandoned uploads', () => {
  let api: TestApi;
  let seller: Seller;
  const bytes = Buffer.from('twenty bytes of data');
  // The worker's storage, where the purge removes parts.
  const { storageDir } = loadRuntimeConfig().files;

  before(async () => {
    // Part URLs name the public URL: make it this API's own address.
    const port = await findFreePort();
    const config = loadRuntimeConfig();
    api = await startCommerceApi(
      { ...config, api: { ...config.api, publicUrl: `http://127.0.0.1:${port}` } },
      { host: '127.0.0.1', port },
    );
    seller = await createSeller(api);
  });
  after(() => api.close());

  /** A downloadable with its one part PUT, not completed; answers its id and upload. */
  async function startUpload() {
    const sha256 = createHash('sha256').update(bytes).digest('base64');
    const created = await callV1(api, seller.token, 'POST', '/v1/files/', {
      ...fileCreate(bytes.length, 'downloadable', 'text/plain'),
      checksum_sha256_base64: sha256,
    });
    assert.equal(created.status, 201);
    const [part] = created.body.upload.parts;
    const put = await fetch(part.url, { method: 'PUT', body: bytes });
    assert.equal(put.status, 200);
    const completion = {
      id: created.body.upload.id,
      path: created.body.path,
      parts: [{ number: 1, checksum_etag: put.headers.get('etag'), checksum_sha256_base64: null }],
    };
    return { id: created.body.id as string, path: created.body.path as string, completion };
  }

  const complete = (id: string, completion: unknown) =>
    callV1(api, seller.token, 'POST', `/v1/files/${id}/uploaded`, completion);

  /** Moves a file's creation into the past. */
  async function createdAgo(id: string, ms: number) {
    const em = api.orm.em.fork();
    const file = await em.findOneOrFail(StoredFile, id);
    file.createdAt = new Date(Date.now() - ms);
    await em.flush();
  }

  const partsOf = (path: string) => existsSync(join(storageDir, 'uploads', path));
  const objectOf = (path: string) => existsSync(join(storageDir, 'objects', path));

  it('refuses to complete an upload older than its lifetime', async () => {
    const { id, completion } = await startUpload();
    await createdAgo(id, uploadLifetimeMs + hour);
    const { status, body } = await complete(id, completion);
    assert.equal(status, 403);
    assert.equal(body.error, 'NotPermitted');
    assert.equal((await api.orm.em.fork().findOneOrFail(StoredFile, id)).isUploaded, false);
  });

  it('are deleted by the maintenance purge, rows and parts; recent and completed files stay', async () => {
    const abandoned = await startUpload();
    const recent = await startUpload();
    const completed = await startUpload();
    assert.equal((await complete(completed.id, completed.completion)).status, 200);
    await createdAgo(abandoned.id, uploadLifetimeMs + hour);
    await createdAgo(recent.id, uploadLifetimeMs - hour);
    await createdAgo(completed.id, uploadLifetimeMs + hour);
    assert.ok(partsOf(abandoned.path));

    // With the other upkeep: the purge workflow the operations API starts.
    const before = new Date(Date.now() + 1000).toISOString();
    const started = await fetch(`${api.url}/api/ops/maintenance/purge-expired`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await opsSessionToken(api, { admin: true })}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ before }),
    });
    assert.equal(started.status, 202);
    const { workflowId } = (await started.json()) as { workflowId: string };
    const result = await api.temporal.workflow
      .getHandle<typeof purgeExpiredRecords>(workflowId)
      .result();
    assert.equal(result.stage, 'done');
    assert.ok(result.abandonedUploadsDeleted >= 1);

    const em = api.orm.em.fork();
    assert.equal(await em.count(StoredFile, { id: abandoned.id }), 0);
    assert.equal(partsOf(abandoned.path), false);
    assert.equal(await em.count(StoredFile, { id: recent.id }), 1);
    assert.ok(partsOf(recent.path));
    assert.equal((await em.findOneOrFail(StoredFile, completed.id)).isUploaded, true);
    assert.ok(objectOf(completed.path));
    // The recent upload can still be completed.
    assert.equal((await complete(recent.id, recent.completion)).status, 200);
  });
});
