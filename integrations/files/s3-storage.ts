import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { AwsClient } from 'aws4fetch';
import type { S3FilesConfig } from '../../config/env.ts';
import { type FileStorage, UploadRejected } from './storage.ts';

/** The first `<tag>`'s text in an S3 XML answer. */
function xmlText(xml: string, tag: string): string | undefined {
  const text = new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(xml)?.[1];
  const entities: Record<string, string> = { quot: '"', amp: '&', lt: '<', gt: '>', apos: "'" };
  return text?.replace(/&(#\d+|\w+);/g, (entity, name: string) =>
    name.startsWith('#') ? String.fromCharCode(Number(name.slice(1))) : (entities[name] ?? entity),
  );
}

const escapeXml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');

/**
 * The storage on an S3-compatible service. Clients PUT parts straight to S3 through presigned
 * UploadPart URLs; completing reads the object back once to checksum it, and an object that is
 * not what was declared is deleted.
 */
export function s3Storage(settings: S3FilesConfig, partUrlLifetimeMs: number): FileStorage {
  const objectUrl = (key: string, query: Record<string, string> = {}) => {
    const url = new URL(`${settings.endpoint.replace(/\/$/, '')}/${settings.bucket}/${key}`);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    return url;
  };
  // AWS Signature V4 by aws4fetch: the API's own requests signed in their headers (payloads
  // unsigned), a 5xx or 429 (S3's SlowDown) retried a few times with backoff.
  const s3 = new AwsClient({
    accessKeyId: settings.accessKeyId,
    secretAccessKey: settings.secretAccessKey,
    region: settings.region,
    service: 's3',
    retries: 3,
  });
  const send = (method: string, url: URL, body?: string) => s3.fetch(url, { method, body });
  const failed = async (what: string, response: Response) =>
    new Error(`S3 ${what} failed: ${response.status} ${await response.text()}`);

  /** The id of the upload in progress for `key`, if any. */
  async function uploadIdOf(key: string): Promise<string | undefined> {
    const url = new URL(`${settings.endpoint.replace(/\/$/, '')}/${settings.bucket}`);
    url.searchParams.set('uploads', '');
    url.searchParams.set('prefix', key);
    const response = await send('GET', url);
    if (!response.ok) throw await failed('ListMultipartUploads', response);
    const xml = await response.text();
    for (const [, upload] of xml.matchAll(/<Upload>([\s\S]*?)<\/Upload>/g)) {
      if (xmlText(upload ?? '', 'Key') === key) return xmlText(upload ?? '', 'UploadId');
    }
    return undefined;
  }

  async function deleteObject(key: string) {
    const response = await send('DELETE', objectUrl(key));
    if (!response.ok && response.status !== 404) throw await failed('DeleteObject', response);
  }

  return {
    async startUpload(key, parts) {
      const created = await send('POST', objectUrl(key, { uploads: '' }));
      if (!created.ok) throw await failed('CreateMultipartUpload', created);
      const uploadId = xmlText(await created.text(), 'UploadId');
      if (!uploadId) throw new Error('S3 CreateMultipartUpload answered no UploadId');
      const lifetime = String(Math.round(partUrlLifetimeMs / 1000));
      return Promise.all(
        parts.map(async (part) => {
          // Signed, the planned length is the only one S3 takes: no part larger than declared
          // (`allHeaders`: aws4fetch leaves content-length unsigned otherwise).
          const headers = { 'content-length': String(part.chunkEnd - part.chunkStart) };
          const url = objectUrl(key, {
            partNumber: String(part.number),
            uploadId,
            'X-Amz-Expires': lifetime,
          });
          const signed = await s3.sign(url, {
            method: 'PUT',
            headers,
            aws: { signQuery: true, allHeaders: true },
          });
          return { url: signed.url, headers };
        }),
      );
    },

    writePart() {
      throw new Error('Parts are PUT straight to S3, not through the API.');
    },

    async completeUpload(key, parts, expected) {
      const uploadId = await uploadIdOf(key);
      if (!uploadId) {
        throw new UploadRejected('unknown_upload', 'No upload is in progress for this file.');
      }
      const sorted = parts.toSorted((a, b) => a.number - b.number);
      const body = `<CompleteMultipartUpload>${sorted
        .map(
          (part) =>
            `<Part><PartNumber>${part.number}</PartNumber><ETag>${escapeXml(part.etag)}</ETag></Part>`,
        )
        .join('')}</CompleteMultipartUpload>`;
      const completed = await send('POST', objectUrl(key, { uploadId }), body);
      // S3 may answer 200 with an error document once it has started answering.
      const answer = await completed.text();
      const code = xmlText(answer, 'Code');
      if (code === 'InvalidPart' || code === 'InvalidPartOrder' || code === 'EntityTooSmall') {
        throw new UploadRejected('etag_mismatch', `S3 refused the parts: ${code}.`);
      }
      if (!completed.ok || code) throw new Error(`S3 CompleteMultipartUpload failed: ${answer}`);
      const etag = xmlText(answer, 'ETag') ?? '';

      const object = await send('GET', objectUrl(key));
      if (!object.ok || !object.body) throw await failed('GetObject', object);
      const whole = createHash('sha256');
      let size = 0;
      for await (const chunk of Readable.fromWeb(object.body as WebReadableStream)) {
        size += chunk.length;
        whole.update(chunk);
      }
      const digest = whole.digest();
      const sha256Base64 = digest.toString('base64');
      if (size !== expected.size) {
        await deleteObject(key);
        throw new UploadRejected(
          'size_mismatch',
          `The parts hold ${size} bytes, not the declared ${expected.size}.`,
        );
      }
      if (expected.sha256Base64 && sha256Base64 !== expected.sha256Base64) {
        await deleteObject(key);
        throw new UploadRejected(
          'checksum_mismatch',
          'The file does not match its declared SHA-256 checksum.',
        );
      }
      return {
        size,
        sha256Base64,
        sha256Hex: digest.toString('hex'),
        etag,
        lastModifiedAt: new Date(object.headers.get('last-modified') ?? Date.now()),
      };
    },

    async read(key) {
      const response = await send('GET', objectUrl(key));
      if (response.status === 404) return null;
      if (!response.ok || !response.body) throw await failed('GetObject', response);
      return {
        size: Number(response.headers.get('content-length')),
        stream: Readable.fromWeb(response.body as WebReadableStream),
      };
    },

    async remove(key) {
      await deleteObject(key);
      const uploadId = await uploadIdOf(key);
      if (uploadId) {
        const aborted = await send('DELETE', objectUrl(key, { uploadId }));
        if (!aborted.ok && aborted.status !== 404)
          throw await failed('AbortMultipartUpload', aborted);
      }
    },
  };
}
