/**
 * File upload through the files API (product media, downloadables), as Polar's SDK does it:
 * create the file with its plan of parts, PUT each byte range to its signed URL keeping the ETag
 * answered, then mark the file uploaded with those ETags. Only then can a product name it in
 * `medias` (or a benefit in `files`).
 */
import type { fileUploadWire } from '../../../../commerce/files/schemas.ts';
import { ApiError, api } from '../../api/client';
import type { ProductMedia } from './api';

/** The largest image the API takes as product media. */
export const mediaMaxBytes = 10 * 1024 * 1024;
export const mediaMimeTypes = [
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/webp',
  'image/svg+xml',
];
// S3 takes parts of at least 5 MiB (but the last): a 10 MB image goes in two.
const partBytes = 5 * 1024 * 1024;

type FileUpload = ReturnType<typeof fileUploadWire>;

function planParts(size: number) {
  const parts = [];
  for (let start = 0, number = 1; start < size; start += partBytes, number += 1) {
    parts.push({ number, chunk_start: start, chunk_end: Math.min(start + partBytes, size) });
  }
  return parts;
}

/** Uploads `file` for `service` (`product_media`, `downloadable`); answers the uploaded file. */
export async function uploadFile<Uploaded>(
  file: File,
  service: 'product_media' | 'downloadable',
): Promise<Uploaded> {
  const created = await api.post<FileUpload>('/v1/files/', {
    service,
    name: file.name,
    mime_type: file.type,
    size: file.size,
    upload: { parts: planParts(file.size) },
  });
  const uploaded = await Promise.all(
    created.upload.parts.map(async (part) => {
      const response = await fetch(part.url, {
        method: 'PUT',
        headers: part.headers,
        body: file.slice(part.chunk_start, part.chunk_end),
      });
      const etag = response.headers.get('ETag');
      if (!response.ok || !etag) {
        throw new ApiError(
          `Uploading part ${part.number} failed (HTTP ${response.status}).`,
          response.status,
        );
      }
      return { number: part.number, checksum_etag: etag, checksum_sha256_base64: null };
    }),
  );
  return api.post<Uploaded>(`/v1/files/${created.id}/uploaded`, {
    id: created.upload.id,
    path: created.upload.path,
    parts: uploaded,
  });
}

export const uploadProductMedia = (file: File) => uploadFile<ProductMedia>(file, 'product_media');
