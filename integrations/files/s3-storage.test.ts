import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FileUpload } from '@polar-sh/sdk/models/components/fileupload.js';
import { HTTPValidationError } from '@polar-sh/sdk/models/errors/httpvalidationerror.js';
import { AwsClient } from 'aws4fetch';
import { startApiServer } from '../../api/server.ts';
import { createSeller, type Seller, type TestApi } from '../../commerce/testing.ts';
import { loadRuntimeConfig } from '../../config/env.ts';
import { findFreePort, Supervisor, waitUntilReady } from '../../devstack/supervisor.ts';
import { locateGoTool } from '../../devstack/tools.ts';

const sha256Base64 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('base64');
const credentials = {
  region: 'us-east-1',
  accessKeyId: 'tollgate-test',
  secretAccessKey: randomBytes(16).toString('hex'),
};
const bucket = 'tollgate-files';
/** S3's smallest part, but for the last one. */
const minimumPartSize = 5 * 1024 * 1024;

/** Plans `bytes` in parts of `partSize`, with their checksums, as Polar's uploader does. */
function plan(bytes: Buffer, partSize: number) {
  const parts = [];
  for (let start = 0, number = 1; start < bytes.length; start += partSize, number += 1) {
    const end = Math.min(start + partSize, bytes.length);
    const chunk = bytes.subarray(start, end);
    parts.push({
      number,
      chunkStart: start,
      chunkEnd: end,
      checksumSha256Base64: sha256Base64(chunk),
    });
  }
  return parts;
}

/** PUTs each part to its URL without credentials, as the uploader does; answers what completes. */
async function putParts(upload: FileUpload, bytes: Buffer) {
  const completed = [];
  for (const part of upload.upload.parts) {
    const response = await fetch(part.url, {
      method: 'PUT',
      headers: part.headers,
      body: bytes.subarray(part.chunkStart, part.chunkEnd),
    });
    assert.equal(response.status, 200, await response.clone().text());
    completed.push({
      number: part.number,
      checksumEtag: response.headers.get('etag') ?? '',
      checksumSha256Base64: part.checksumSha256Base64 ?? null,
    });
  }
  return completed;
}

describe('files on S3-compatible storage (Versity S3 Gateway)', () => {
  const supervisor = new Supervisor((service, code) => {
    console.error(`${service} exited (${code}); see versitygw.log in ${folder}`);
  });
  let folder: string;
  let endpoint: string;
  let api: TestApi;
  let seller: Seller;

  /** The bytes of `key` as the gateway stores them: one file per object under the bucket. */
  const objectFile = (key: string) => join(folder, 'buckets', bucket, key);

  before(async () => {
    const versitygw = await locateGoTool('versitygw', process.env.VERSITYGW_PATH, console.log);
    assert.ok(versitygw, 'versitygw is built with Go');
    folder = await mkdtemp(join(tmpdir(), 'tollgate-s3-'));
    await mkdir(join(folder, 'buckets'));
    const s3Port = await findFreePort();
    endpoint = `http://127.0.0.1:${s3Port}`;
    supervisor.spawn({
      name: 'versitygw',
      command: versitygw,
      args: [
        '--access',
        credentials.accessKeyId,
        '--secret',
        credentials.secretAccessKey,
        '--port',
        `127.0.0.1:${s3Port}`,
        '--quiet',
        'posix',
        join(folder, 'buckets'),
      ],
      logFile: join(folder, 'versitygw.log'),
    });
    await waitUntilReady('versitygw', async () => {
      await fetch(endpoint);
      return true;
    });
    const s3 = new AwsClient({ ...credentials, service: 's3' });
    const createBucket = await s3.fetch(`${endpoint}/${bucket}`, { method: 'PUT' });
    assert.equal(createBucket.status, 200);

    const port = await findFreePort();
    const config = loadRuntimeConfig();
    api = await startApiServer(
      {
        ...config,
        api: { ...config.api, publicUrl: `http://127.0.0.1:${port}` },
        files: {
          ...config.files,
          storageDir: join(folder, 'unused-local-storage'),
          s3: { endpoint, bucket, ...credentials },
        },
      },
      { host: '127.0.0.1', port },
    );
    seller = await createSeller(api);
  });
  after(async () => {
    await api?.close();
    await supervisor.stopAll();
    await rm(folder, { recursive: true, force: true });
  });

  async function upload(
    bytes: Buffer,
    partSize: number,
    service: 'product_media' | 'downloadable' = 'product_media',
  ) {
    const created = await seller.polar.files.create({
      service,
      name: service === 'product_media' ? 'cover.png' : 'archive.zip',
      mimeType: service === 'product_media' ? 'image/png' : 'application/zip',
      size: bytes.length,
      checksumSha256Base64: sha256Base64(bytes),
      upload: { parts: plan(bytes, partSize) },
    });
    const parts = await putParts(created, bytes);
    return seller.polar.files.uploaded({
      id: created.id,
      fileUploadCompleted: { id: created.upload.id, path: created.upload.path, parts },
    });
  }

  it('hands out presigned S3 UploadPart URLs that expire like the API’s own', async () => {
    const created = await seller.polar.files.create({
      service: 'downloadable',
      name: 'notes.txt',
      mimeType: 'text/plain',
      size: 5,
      upload: { parts: [{ number: 1, chunkStart: 0, chunkEnd: 5 }] },
    });
    const [part] = created.upload.parts;
    const url = new URL(part?.url ?? '');
    assert.equal(url.origin, endpoint);
    assert.equal(url.pathname, `/${bucket}/${created.path}`);
    assert.equal(url.searchParams.get('partNumber'), '1');
    assert.ok(url.searchParams.get('uploadId'));
    assert.equal(url.searchParams.get('X-Amz-Expires'), '3600');
    const expiresIn = (part?.expiresAt.getTime() ?? 0) - Date.now();
    assert.ok(expiresIn > 3500_000 && expiresIn <= 3600_000);
  });

  it('signs each part URL for its planned length: S3 refuses a larger part', async () => {
    const bytes = Buffer.from('exactly twenty bytes');
    const created = await seller.polar.files.create({
      service: 'downloadable',
      name: 'twenty.txt',
      mimeType: 'text/plain',
      size: bytes.length,
      upload: { parts: [{ number: 1, chunkStart: 0, chunkEnd: bytes.length }] },
    });
    const [part] = created.upload.parts;
    assert.deepEqual(part?.headers, { 'content-length': String(bytes.length) });
    const url = part?.url ?? '';
    const larger = await fetch(url, { method: 'PUT', body: Buffer.concat([bytes, bytes]) });
    assert.equal(larger.status, 403, await larger.text());
    const planned = await fetch(url, { method: 'PUT', headers: part?.headers, body: bytes });
    assert.equal(planned.status, 200, await planned.text());
  });

  it('uploads a file in one part straight to S3, then serves it publicly', async () => {
    const bytes = randomBytes(70_000);
    const file = await upload(bytes, bytes.length);
    assert.equal(file.isUploaded, true);
    assert.equal(file.checksumSha256Base64, sha256Base64(bytes));
    assert.equal(file.checksumSha256Hex, createHash('sha256').update(bytes).digest('hex'));
    assert.match(file.checksumEtag ?? '', /^"[0-9a-f]{32}-1"$/);
    assert.ok((await readFile(objectFile(file.path))).equals(bytes), 'the bytes are in the bucket');
    assert.ok(!existsSync(join(folder, 'unused-local-storage', 'objects', file.path)));

    if (file.service !== 'product_media') assert.fail('a product media file');
    const response = await fetch(file.publicUrl);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'image/png');
    assert.equal(response.headers.get('etag'), file.checksumEtag);
    assert.ok(Buffer.from(await response.arrayBuffer()).equals(bytes));
  });

  it('joins several parts into one object with S3’s multipart ETag', async () => {
    const bytes = randomBytes(minimumPartSize * 2 + 1234);
    // Larger than product media may be: a downloadable.
    const file = await upload(bytes, minimumPartSize, 'downloadable');
    const partMd5s = plan(bytes, minimumPartSize).map((part) =>
      createHash('md5').update(bytes.subarray(part.chunkStart, part.chunkEnd)).digest(),
    );
    const multipart = createHash('md5').update(Buffer.concat(partMd5s)).digest('hex');
    assert.equal(file.checksumEtag, `"${multipart}-3"`);
    assert.equal(file.size, bytes.length);
    assert.equal(file.checksumSha256Base64, sha256Base64(bytes));
    assert.ok((await readFile(objectFile(file.path))).equals(bytes));
  });

  it('refuses bytes that do not match the declared checksum, and deletes them', async () => {
    const declared = randomBytes(1000);
    const tampered = Buffer.from(declared);
    tampered[500] = (tampered[500] ?? 0) ^ 0xff;
    const created = await seller.polar.files.create({
      service: 'product_media',
      name: 'cover.png',
      mimeType: 'image/png',
      size: declared.length,
      checksumSha256Base64: sha256Base64(declared),
      upload: { parts: [{ number: 1, chunkStart: 0, chunkEnd: declared.length }] },
    });
    const parts = await putParts(created, tampered);
    await assert.rejects(
      seller.polar.files.uploaded({
        id: created.id,
        fileUploadCompleted: { id: created.upload.id, path: created.upload.path, parts },
      }),
      (error) =>
        error instanceof HTTPValidationError &&
        JSON.stringify(error.detail).includes('does not match its declared SHA-256 checksum'),
    );
    assert.ok(!existsSync(objectFile(created.path)), 'the refused object is deleted');
    const page = await seller.polar.files.list({ ids: [created.id] });
    assert.deepEqual(page.result.items, [], 'the file is not uploaded');
  });

  it('deletes the object from S3 with the file', async () => {
    const file = await upload(Buffer.from('GIF89a'), 6);
    assert.ok(existsSync(objectFile(file.path)));
    await seller.polar.files.delete({ id: file.id });
    assert.ok(!existsSync(objectFile(file.path)));
    if (file.service !== 'product_media') assert.fail('a product media file');
    assert.equal((await fetch(file.publicUrl)).status, 404);
  });
});
