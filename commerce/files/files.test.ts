import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { Polar } from '@polar-sh/sdk';
import type { FileUpload } from '@polar-sh/sdk/models/components/fileupload.js';
import { HTTPValidationError } from '@polar-sh/sdk/models/errors/httpvalidationerror.js';
import { ResourceNotFound } from '@polar-sh/sdk/models/errors/resourcenotfound.js';
import { startApiServer } from '../../api/server.ts';
import { loadRuntimeConfig } from '../../config/env.ts';
import { StoredFile } from '../../db/entities/index.ts';
import { localDiskStorage, UploadRejected } from '../../integrations/files/storage.ts';
import { callV1, createSeller, type Seller, type TestApi } from '../testing.ts';
import { readPartGrant, signPartGrant } from './service.ts';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes);
const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest();

/** The whole-file checksums Tollgate must answer, computed here independently. */
function expectedChecksums(bytes: Buffer, partSizes: number[]) {
  let offset = 0;
  const partMd5s = partSizes.map((size) => {
    const digest = md5(bytes.subarray(offset, offset + size));
    offset += size;
    return digest;
  });
  const multipart = createHash('md5').update(Buffer.concat(partMd5s)).digest('hex');
  return {
    base64: sha256(bytes).digest('base64'),
    hex: sha256(bytes).digest('hex'),
    etag: `"${multipart}-${partSizes.length}"`,
  };
}

/** Splits `bytes` into parts of at most `partSize` bytes, as Polar's uploader plans them. */
function planParts(bytes: Buffer, partSize: number) {
  const parts = [];
  for (let start = 0, number = 1; start < bytes.length; start += partSize, number += 1) {
    const end = Math.min(start + partSize, bytes.length);
    parts.push({
      number,
      chunkStart: start,
      chunkEnd: end,
      checksumSha256Base64: sha256(bytes.subarray(start, end)).digest('base64'),
    });
  }
  return parts;
}

/** PUTs each part's bytes to its signed URL, as the uploader does: no token, keep the ETag. */
async function putParts(upload: FileUpload, bytes: Buffer) {
  const completed = [];
  for (const part of upload.upload.parts) {
    const response = await fetch(part.url, {
      method: 'PUT',
      headers: part.headers,
      body: bytes.subarray(part.chunkStart, part.chunkEnd),
    });
    assert.equal(response.status, 200, await response.clone().text());
    const etag = response.headers.get('etag');
    assert.ok(etag, 'a part answers its ETag');
    completed.push({
      number: part.number,
      checksumEtag: etag,
      checksumSha256Base64: part.checksumSha256Base64 ?? null,
    });
  }
  return completed;
}

/** The whole upload flow through the SDK: create, PUT the parts, complete. */
async function uploadFile(
  polar: Polar,
  bytes: Buffer,
  options: {
    name: string;
    mimeType: string;
    service: 'downloadable' | 'product_media' | 'organization_avatar';
    partSize?: number;
  },
) {
  const upload = await polar.files.create({
    service: options.service,
    name: options.name,
    mimeType: options.mimeType,
    size: bytes.length,
    checksumSha256Base64: sha256(bytes).digest('base64'),
    upload: { parts: planParts(bytes, options.partSize ?? bytes.length) },
  });
  const parts = await putParts(upload, bytes);
  const file = await polar.files.uploaded({
    id: upload.id,
    fileUploadCompleted: { id: upload.upload.id, path: upload.upload.path, parts },
  });
  return { upload, file };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

describe('files (/v1/files)', () => {
  let api: TestApi;
  let seller: Seller;
  let other: Seller;
  let storageDir: string;
  const authSecret = () => process.env.TOLLGATE_AUTH_SECRET as string;

  before(async () => {
    // Answers link to the API's public URL: make it this API's real address, and keep the
    // bytes of this run in a folder of its own.
    const port = await freePort();
    storageDir = await mkdtemp(join(tmpdir(), 'tollgate-files-'));
    const config = loadRuntimeConfig();
    api = await startApiServer(
      {
        ...config,
        api: { ...config.api, publicUrl: `http://127.0.0.1:${port}` },
        files: { ...config.files, storageDir },
      },
      { host: '127.0.0.1', port },
    );
    seller = await createSeller(api);
    other = await createSeller(api);
  });
  after(async () => {
    await api.close();
    await rm(storageDir, { recursive: true, force: true });
  });

  const storedFile = (id: string) => api.orm.em.fork().findOneOrFail(StoredFile, { id });

  it('uploads a small file in one part, with its checksums in every encoding', async () => {
    const bytes = Buffer.from('The license text of a downloadable.\n');
    const { upload, file } = await uploadFile(seller.polar, bytes, {
      name: 'LICENSE.txt',
      mimeType: 'text/plain',
      service: 'downloadable',
    });
    assert.equal(upload.isUploaded, false);
    assert.equal(upload.sizeReadable, `${bytes.length}.0 B`);
    assert.equal(upload.upload.parts.length, 1);
    assert.ok(upload.upload.parts[0]?.url.startsWith(`${api.url}/v1/files/uploads/`));
    assert.ok((upload.upload.parts[0]?.expiresAt.getTime() ?? 0) > Date.now());

    const expected = expectedChecksums(bytes, [bytes.length]);
    assert.equal(file.service, 'downloadable');
    assert.equal(file.id, upload.id);
    assert.equal(file.isUploaded, true);
    assert.equal(file.size, bytes.length);
    assert.equal(file.checksumSha256Base64, expected.base64);
    assert.equal(file.checksumSha256Hex, expected.hex);
    assert.equal(file.checksumEtag, expected.etag);
    assert.ok(file.lastModifiedAt instanceof Date);
    assert.equal(file.path, `${seller.organizationId}/${file.id}`);
    assert.ok(!('publicUrl' in file), 'a downloadable has no public URL');

    const page = await seller.polar.files.list({ ids: [file.id] });
    assert.deepEqual(
      page.result.items.map((listed) => listed.id),
      [file.id],
    );
  });

  it('uploads a product image in two parts and serves it publicly', async () => {
    const bytes = Buffer.concat([Buffer.from('\x89PNG\r\n\x1a\n', 'binary'), randomBytes(300_000)]);
    const partSize = 200_000;
    const { upload, file } = await uploadFile(seller.polar, bytes, {
      name: 'cover image.png',
      mimeType: 'image/png',
      service: 'product_media',
      partSize,
    });
    assert.equal(upload.upload.parts.length, 2);
    assert.deepEqual(
      upload.upload.parts.map((part) => [part.chunkStart, part.chunkEnd]),
      [
        [0, partSize],
        [partSize, bytes.length],
      ],
    );
    const expected = expectedChecksums(bytes, [partSize, bytes.length - partSize]);
    assert.equal(file.checksumSha256Base64, expected.base64);
    assert.equal(file.checksumSha256Hex, expected.hex);
    assert.equal(file.checksumEtag, expected.etag);
    assert.equal(file.sizeReadable, '293.0 KB');
    assert.equal(file.service, 'product_media');
    if (file.service !== 'product_media') return;

    const response = await fetch(file.publicUrl);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'image/png');
    assert.equal(response.headers.get('etag'), expected.etag);
    assert.ok(Buffer.from(await response.arrayBuffer()).equals(bytes));
  });

  it('serves an organization avatar publicly too', async () => {
    const bytes = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>');
    const { file } = await uploadFile(seller.polar, bytes, {
      name: 'logo.svg',
      mimeType: 'image/svg+xml',
      service: 'organization_avatar',
    });
    assert.equal(file.service, 'organization_avatar');
    if (file.service !== 'organization_avatar') return;
    const response = await fetch(file.publicUrl);
    assert.equal(response.headers.get('content-type'), 'image/svg+xml');
    assert.match(response.headers.get('content-security-policy') ?? '', /sandbox/);
    assert.equal(await response.text(), bytes.toString());
  });

  it('never serves a downloadable, nor a file not yet uploaded, without credentials', async () => {
    const bytes = Buffer.from('secret content');
    const { file } = await uploadFile(seller.polar, bytes, {
      name: 'ebook.pdf',
      mimeType: 'application/pdf',
      service: 'downloadable',
    });
    const downloadable = await fetch(`${api.url}/v1/files/public/${file.id}/ebook.pdf`);
    assert.equal(downloadable.status, 404);
    assert.equal(((await downloadable.json()) as { error: string }).error, 'ResourceNotFound');

    const pending = await seller.polar.files.create({
      service: 'product_media',
      name: 'pending.png',
      mimeType: 'image/png',
      size: 4,
      upload: { parts: [{ number: 1, chunkStart: 0, chunkEnd: 4 }] },
    });
    await fetch(pending.upload.parts[0]?.url ?? '', { method: 'PUT', body: 'abcd' });
    const notCompleted = await fetch(`${api.url}/v1/files/public/${pending.id}/pending.png`);
    assert.equal(notCompleted.status, 404);
  });

  it('refuses a part whose bytes do not match its checksum, and keeps the file pending', async () => {
    const bytes = Buffer.from('0123456789abcdef');
    const upload = await seller.polar.files.create({
      service: 'downloadable',
      name: 'data.bin',
      mimeType: 'application/octet-stream',
      size: bytes.length,
      upload: { parts: planParts(bytes, 8) },
    });
    const [first, second] = upload.upload.parts;
    assert.ok(first && second);
    const tampered = Buffer.from(bytes.subarray(8, 16));
    tampered[0] = 0x58;
    const refused = await fetch(second.url, { method: 'PUT', body: tampered });
    assert.equal(refused.status, 422);

    const firstPut = await fetch(first.url, { method: 'PUT', body: bytes.subarray(0, 8) });
    assert.equal(firstPut.status, 200);
    await assert.rejects(
      seller.polar.files.uploaded({
        id: upload.id,
        fileUploadCompleted: {
          id: upload.upload.id,
          path: upload.upload.path,
          parts: [
            {
              number: 1,
              checksumEtag: firstPut.headers.get('etag') ?? '',
              checksumSha256Base64: null,
            },
            {
              number: 2,
              checksumEtag: `"${md5(tampered).toString('hex')}"`,
              checksumSha256Base64: null,
            },
          ],
        },
      }),
      (error) => error instanceof HTTPValidationError,
    );
    assert.equal((await storedFile(upload.id)).isUploaded, false);

    // The right bytes are still welcome, and the upload then completes.
    const secondPut = await fetch(second.url, { method: 'PUT', body: bytes.subarray(8, 16) });
    assert.equal(secondPut.status, 200);
    const file = await seller.polar.files.uploaded({
      id: upload.id,
      fileUploadCompleted: {
        id: upload.upload.id,
        path: upload.upload.path,
        parts: [
          {
            number: 1,
            checksumEtag: firstPut.headers.get('etag') ?? '',
            checksumSha256Base64: null,
          },
          {
            number: 2,
            checksumEtag: secondPut.headers.get('etag') ?? '',
            checksumSha256Base64: null,
          },
        ],
      },
    });
    assert.equal(file.checksumSha256Hex, sha256(bytes).digest('hex'));
  });

  it('refuses a part of the wrong size', async () => {
    const bytes = Buffer.from('exactly twenty bytes');
    const upload = await seller.polar.files.create({
      service: 'downloadable',
      name: 'twenty.txt',
      mimeType: 'text/plain',
      size: bytes.length,
      upload: { parts: [{ number: 1, chunkStart: 0, chunkEnd: bytes.length }] },
    });
    const url = upload.upload.parts[0]?.url ?? '';
    const short = await fetch(url, { method: 'PUT', body: bytes.subarray(0, 19) });
    assert.equal(short.status, 422);
    const long = await fetch(url, { method: 'PUT', body: Buffer.concat([bytes, bytes]) });
    assert.equal(long.status, 422);
    // Without a Content-Length, the bytes are counted as they come.
    const streamed = await fetch(url, {
      method: 'PUT',
      body: Readable.toWeb(Readable.from([bytes.subarray(0, 10)])) as ReadableStream,
      duplex: 'half',
    } as RequestInit);
    assert.equal(streamed.status, 422);
    assert.equal((await storedFile(upload.id)).isUploaded, false);
  });

  it('takes a part as raw bytes whatever its Content-Type', async () => {
    const bytes = Buffer.from('{"twenty": "bytes!"}');
    const upload = await seller.polar.files.create({
      service: 'downloadable',
      name: 'settings.json',
      mimeType: 'application/json',
      size: bytes.length,
      upload: { parts: [{ number: 1, chunkStart: 0, chunkEnd: bytes.length }] },
    });
    // The API's JSON parser leaves upload URLs alone: the part's bytes reach the storage.
    const put = await fetch(upload.upload.parts[0]?.url ?? '', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: bytes,
    });
    assert.equal(put.status, 200);
    const file = await seller.polar.files.uploaded({
      id: upload.id,
      fileUploadCompleted: {
        id: upload.upload.id,
        path: upload.upload.path,
        parts: [
          { number: 1, checksumEtag: put.headers.get('etag') ?? '', checksumSha256Base64: null },
        ],
      },
    });
    assert.equal(file.checksumSha256Hex, sha256(bytes).digest('hex'));
  });

  it('refuses to complete a file whose bytes do not match its declared checksum', async () => {
    const bytes = Buffer.from('what was really uploaded');
    const upload = await seller.polar.files.create({
      service: 'downloadable',
      name: 'claimed.txt',
      mimeType: 'text/plain',
      size: bytes.length,
      checksumSha256Base64: sha256(Buffer.from('what was claimed')).digest('base64'),
      upload: { parts: [{ number: 1, chunkStart: 0, chunkEnd: bytes.length }] },
    });
    const parts = await putParts(upload, bytes);
    const refused = await callV1(api, seller.token, 'POST', `/v1/files/${upload.id}/uploaded`, {
      id: upload.upload.id,
      path: upload.upload.path,
      parts: parts.map((part) => ({
        number: part.number,
        checksum_etag: part.checksumEtag,
        checksum_sha256_base64: null,
      })),
    });
    assert.equal(refused.status, 422);
    assert.equal(refused.body.error, 'PolarRequestValidationError');
    assert.equal((await storedFile(upload.id)).isUploaded, false);
  });

  it('refuses a part plan that does not cover the declared size', async () => {
    const answer = await callV1(api, seller.token, 'POST', '/v1/files/', {
      service: 'downloadable',
      name: 'gap.bin',
      mime_type: 'application/octet-stream',
      size: 10,
      upload: {
        parts: [
          { number: 1, chunk_start: 0, chunk_end: 4 },
          { number: 2, chunk_start: 5, chunk_end: 10 },
        ],
      },
    });
    assert.equal(answer.status, 422);
    assert.deepEqual(answer.body.detail[0].loc, ['body', 'upload', 'parts', 1, 'chunk_start']);
  });

  it('refuses images of another type and an organization_id under a token', async () => {
    const notImage = await callV1(api, seller.token, 'POST', '/v1/files/', {
      service: 'product_media',
      name: 'cover.pdf',
      mime_type: 'application/pdf',
      size: 4,
      upload: { parts: [{ number: 1, chunk_start: 0, chunk_end: 4 }] },
    });
    assert.equal(notImage.status, 422);
    assert.deepEqual(notImage.body.detail[0].loc, ['body', 'mime_type']);

    const namedOrganization = await callV1(api, seller.token, 'POST', '/v1/files/', {
      organization_id: seller.organizationId,
      service: 'downloadable',
      name: 'a.txt',
      mime_type: 'text/plain',
      size: 4,
      upload: { parts: [{ number: 1, chunk_start: 0, chunk_end: 4 }] },
    });
    assert.equal(namedOrganization.status, 422);
    assert.deepEqual(namedOrganization.body.detail[0].loc, ['body', 'organization_id']);
  });

  it('refuses forged and expired part URLs', async () => {
    const bytes = Buffer.from('four');
    const upload = await seller.polar.files.create({
      service: 'downloadable',
      name: 'four.txt',
      mimeType: 'text/plain',
      size: 4,
      upload: { parts: [{ number: 1, chunkStart: 0, chunkEnd: 4 }] },
    });
    const url = upload.upload.parts[0]?.url ?? '';
    const token = url.slice(url.lastIndexOf('/') + 1);
    const grant = readPartGrant(authSecret(), token);
    assert.ok(grant);

    const base = `${api.url}/v1/files/uploads/`;
    const expired = signPartGrant(authSecret(), { ...grant, expiresAt: Date.now() - 1000 });
    const otherSecret = signPartGrant('x'.repeat(64), grant);
    const [payload, signature] = token.split('.');
    const widened = Buffer.from(
      JSON.stringify([upload.id, 1, 0, 4_000_000, null, grant.expiresAt]),
    ).toString('base64url');
    for (const forged of [expired, otherSecret, `${widened}.${signature}`, `${payload}.x`]) {
      const response = await fetch(`${base}${forged}`, { method: 'PUT', body: bytes });
      assert.equal(response.status, 403, forged);
      assert.equal(((await response.json()) as { error: string }).error, 'NotPermitted');
    }
    const genuine = await fetch(url, { method: 'PUT', body: bytes });
    assert.equal(genuine.status, 200);
  });

  it('renames a file and sets its version', async () => {
    const { file } = await uploadFile(seller.polar, Buffer.from('v1'), {
      name: 'tool.zip',
      mimeType: 'application/zip',
      service: 'downloadable',
    });
    const updated = await seller.polar.files.update({
      id: file.id,
      filePatch: { name: 'tool-1.0.zip', version: '1.0' },
    });
    assert.equal(updated.name, 'tool-1.0.zip');
    assert.equal(updated.version, '1.0');
    const kept = await seller.polar.files.update({ id: file.id, filePatch: { name: null } });
    assert.equal(kept.name, 'tool-1.0.zip');
  });

  it("keeps one organization's files from another", async () => {
    const bytes = Buffer.from('private');
    const { file } = await uploadFile(seller.polar, bytes, {
      name: 'private.txt',
      mimeType: 'text/plain',
      service: 'downloadable',
    });
    const pending = await seller.polar.files.create({
      service: 'downloadable',
      name: 'pending.txt',
      mimeType: 'text/plain',
      size: bytes.length,
      upload: { parts: planParts(bytes, bytes.length) },
    });
    const parts = await putParts(pending, bytes);

    const listed = await other.polar.files.list({ ids: [file.id, pending.id] });
    assert.deepEqual(listed.result.items, []);
    const foreignFilter = await other.polar.files.list({ organizationId: seller.organizationId });
    assert.deepEqual(foreignFilter.result.items, []);

    const isNotFound = (error: unknown) => error instanceof ResourceNotFound;
    await assert.rejects(
      other.polar.files.uploaded({
        id: pending.id,
        fileUploadCompleted: { id: pending.upload.id, path: pending.upload.path, parts },
      }),
      isNotFound,
    );
    await assert.rejects(
      other.polar.files.update({ id: file.id, filePatch: { name: 'mine.txt' } }),
      isNotFound,
    );
    await assert.rejects(other.polar.files.delete({ id: file.id }), isNotFound);

    assert.equal((await storedFile(pending.id)).isUploaded, false);
    const untouched = await storedFile(file.id);
    assert.equal(untouched.name, 'private.txt');
    assert.equal(untouched.deletedAt ?? null, null);
  });

  it('deletes a file: gone from the list, its bytes removed, no longer public', async () => {
    const bytes = Buffer.from('GIF89a');
    const { file } = await uploadFile(seller.polar, bytes, {
      name: 'old.gif',
      mimeType: 'image/gif',
      service: 'product_media',
    });
    const objectPath = join(storageDir, 'objects', file.path);
    assert.ok(existsSync(objectPath));

    await seller.polar.files.delete({ id: file.id });
    assert.ok(!existsSync(objectPath));
    assert.ok((await storedFile(file.id)).deletedAt instanceof Date);
    const page = await seller.polar.files.list({ ids: [file.id] });
    assert.deepEqual(page.result.items, []);
    if (file.service === 'product_media') {
      assert.equal((await fetch(file.publicUrl)).status, 404);
    }
    await assert.rejects(
      seller.polar.files.delete({ id: file.id }),
      (error) => error instanceof ResourceNotFound,
    );
  });
});

describe('local disk file storage', () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'tollgate-storage-'));
  });
  after(() => rm(root, { recursive: true, force: true }));

  const bytes = Buffer.from('hello, multipart world');
  const plan = [
    { number: 1, chunkStart: 0, chunkEnd: 10, sha256Base64: null },
    { number: 2, chunkStart: 10, chunkEnd: bytes.length, sha256Base64: null },
  ];
  const body = (from: number, to: number) => Readable.from([bytes.subarray(from, to)]);

  it('joins verified parts into the file, and removes it', async () => {
    const storage = localDiskStorage(root);
    await storage.startUpload('org/a', plan);
    const second = await storage.writePart('org/a', plan[1] as (typeof plan)[1], body(10, 22));
    const first = await storage.writePart('org/a', plan[0] as (typeof plan)[0], body(0, 10));
    assert.equal(first.etag, `"${md5(bytes.subarray(0, 10)).toString('hex')}"`);
    assert.equal(await storage.read('org/a'), null, 'nothing to read before completion');

    const stored = await storage.completeUpload(
      'org/a',
      [
        { number: 1, etag: first.etag, sha256Base64: null },
        { number: 2, etag: second.etag, sha256Base64: null },
      ],
      { size: bytes.length, sha256Base64: sha256(bytes).digest('base64') },
    );
    assert.deepEqual(
      { size: stored.size, sha256Hex: stored.sha256Hex, etag: stored.etag },
      {
        size: bytes.length,
        sha256Hex: sha256(bytes).digest('hex'),
        etag: expectedChecksums(bytes, [10, 12]).etag,
      },
    );
    const content = await storage.read('org/a');
    assert.ok(content);
    assert.ok(Buffer.concat(await content.stream.toArray()).equals(bytes));

    await storage.remove('org/a');
    assert.equal(await storage.read('org/a'), null);
  });

  it('refuses parts that are not planned, missing or reported with another ETag', async () => {
    const storage = localDiskStorage(root);
    await storage.startUpload('org/b', plan);
    const rejected = (reason: string) => (error: unknown) =>
      error instanceof UploadRejected && error.reason === reason;
    await assert.rejects(
      storage.writePart('org/b', { ...plan[0], chunkEnd: 11 } as (typeof plan)[0], body(0, 11)),
      rejected('part_not_planned'),
    );
    await assert.rejects(
      storage.writePart('org/never-started', plan[0] as (typeof plan)[0], body(0, 10)),
      rejected('unknown_upload'),
    );
    const first = await storage.writePart('org/b', plan[0] as (typeof plan)[0], body(0, 10));
    const expected = { size: bytes.length, sha256Base64: null };
    await assert.rejects(
      storage.completeUpload(
        'org/b',
        [{ number: 1, etag: first.etag, sha256Base64: null }],
        expected,
      ),
      rejected('parts_mismatch'),
    );
    const both = [
      { number: 1, etag: first.etag, sha256Base64: null },
      { number: 2, etag: first.etag, sha256Base64: null },
    ];
    await assert.rejects(storage.completeUpload('org/b', both, expected), rejected('missing_part'));
    await storage.writePart('org/b', plan[1] as (typeof plan)[1], body(10, 22));
    await assert.rejects(
      storage.completeUpload('org/b', both, expected),
      rejected('etag_mismatch'),
    );
    assert.equal(await storage.read('org/b'), null, 'a refused completion leaves no file');
  });

  it('keeps keys inside its folder', async () => {
    const storage = localDiskStorage(root);
    await assert.rejects(storage.startUpload('../objects/x', plan), /escapes the storage/);
  });
});
