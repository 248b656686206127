import { z } from 'zod';
import type { StoredFile } from '../../db/entities/index.ts';
import { fileServices, humanReadableSize } from '../../domain/files.ts';
import { dateTimeWireSchema, isoDateTime, isoDateTimeOrNull } from '../wire.ts';

const sha256Base64 = z
  .string()
  .regex(/^[A-Za-z0-9+/]{43}=$/, 'A base64-encoded SHA-256 digest (44 characters).');

// Media and avatars are served to anyone with a Content-Type taken from here, so only images.
const imageMimeType = z
  .string()
  .regex(
    /^image\/(jpeg|png|gif|webp|svg\+xml)$/,
    'Only images are supported for this type of file.',
  );

const fileCreateFields = {
  organization_id: z.uuid().nullable().optional(),
  name: z.string().trim().min(1).max(255),
  mime_type: z
    .string()
    .max(255)
    .regex(/^[\w.+-]+\/[\w.+-]+$/, 'A MIME type such as application/pdf.'),
  size: z.number().int().min(1),
  checksum_sha256_base64: sha256Base64.nullable().optional(),
  version: z.string().max(255).nullable().optional(),
  upload: z.object({
    parts: z
      .array(
        z.object({
          number: z.number().int().min(1).max(10_000),
          chunk_start: z.number().int().min(0),
          chunk_end: z.number().int().min(1),
          checksum_sha256_base64: sha256Base64.nullable().optional(),
        }),
      )
      .min(1)
      .max(10_000),
  }),
};

/**
 * Polar's `FileCreate`: the file's size and MIME type and its plan of parts, by service. How
 * large each service's files may be is the service's to say (`fileLimits`).
 */
export const fileCreateInput = z.discriminatedUnion('service', [
  z.object({ ...fileCreateFields, service: z.literal('downloadable') }),
  z.object({ ...fileCreateFields, service: z.literal('product_media'), mime_type: imageMimeType }),
  z.object({
    ...fileCreateFields,
    service: z.literal('organization_avatar'),
    mime_type: imageMimeType,
  }),
]);
export type FileCreateInput = z.infer<typeof fileCreateInput>;

/** Polar's `FileUploadCompleted`: the upload's id and path and each part's ETag. */
export const fileUploadCompletedInput = z.object({
  id: z.string().min(1),
  path: z.string().min(1),
  parts: z
    .array(
      z.object({
        number: z.number().int().min(1),
        checksum_etag: z.string().trim().min(1),
        checksum_sha256_base64: z.string().nullable(),
      }),
    )
    .min(1),
});
export type FileUploadCompletedInput = z.infer<typeof fileUploadCompletedInput>;

/** Polar's `FilePatch`. */
export const fileUpdateInput = z.object({
  name: z.string().trim().min(1).max(255).nullable().optional(),
  version: z.string().max(255).nullable().optional(),
});
export type FileUpdateInput = z.infer<typeof fileUpdateInput>;

/** This API's `/v1/files/` under its public URL (`config.api.publicUrl`): answers link here. */
export const filesBaseUrl = (publicUrl: string) =>
  new URL('v1/files/', `${publicUrl.replace(/\/$/, '')}/`).href;

/** Where anyone can fetch a product media or avatar file, without credentials. */
export const filePublicUrl = (file: StoredFile, publicUrl: string) =>
  `${filesBaseUrl(publicUrl)}public/${file.id}/${encodeURIComponent(file.name)}`;

/** The fields every file shape shares (Polar's `S3File` plus `version`). */
function storedFileFields(file: StoredFile) {
  return {
    id: file.id,
    organization_id: file.organization.id,
    name: file.name,
    path: file.path,
    mime_type: file.mimeType,
    size: file.size,
    storage_version: file.storageVersion ?? null,
    checksum_etag: file.checksumEtag ?? null,
    checksum_sha256_base64: file.checksumSha256Base64 ?? null,
    checksum_sha256_hex: file.checksumSha256Hex ?? null,
    last_modified_at: isoDateTimeOrNull(file.lastModifiedAt),
    version: file.version ?? null,
    size_readable: humanReadableSize(file.size),
  };
}

/** Polar's `S3File` plus `version`: what every file answer holds. */
const storedFileWireShape = {
  id: z.uuid(),
  organization_id: z.uuid(),
  name: z.string(),
  path: z.string(),
  mime_type: z.string(),
  size: z.int(),
  storage_version: z.string().nullable(),
  checksum_etag: z.string().nullable(),
  checksum_sha256_base64: z.string().nullable(),
  checksum_sha256_hex: z.string().nullable(),
  last_modified_at: dateTimeWireSchema.nullable(),
  version: z.string().nullable(),
  size_readable: z.string(),
};
const fileReadWireShape = {
  ...storedFileWireShape,
  is_uploaded: z.boolean(),
  created_at: dateTimeWireSchema,
};

/** Polar's `DownloadableFileRead`. */
export const downloadableWireSchema = z
  .object({ ...fileReadWireShape, service: z.literal('downloadable') })
  .meta({ id: 'DownloadableFileRead' });

/** Polar's `ProductMediaFileRead`. */
export const productMediaWireSchema = z
  .object({ ...fileReadWireShape, service: z.literal('product_media'), public_url: z.string() })
  .meta({ id: 'ProductMediaFileRead' });

/** Polar's `OrganizationAvatarFileRead`. */
export const organizationAvatarWireSchema = z
  .object({
    ...fileReadWireShape,
    service: z.literal('organization_avatar'),
    public_url: z.string(),
  })
  .meta({ id: 'OrganizationAvatarFileRead' });

/** Polar's `FileRead`, by `service`. */
export const fileWireSchema = z.discriminatedUnion('service', [
  downloadableWireSchema,
  productMediaWireSchema,
  organizationAvatarWireSchema,
]);

/** Polar's `FileUpload`: the new file and where to PUT each part. */
export const fileUploadWireSchema = z
  .object({
    ...storedFileWireShape,
    is_uploaded: z.boolean(),
    service: z.enum(fileServices),
    upload: z.object({
      id: z.string(),
      path: z.string(),
      parts: z.array(
        z.object({
          number: z.int(),
          chunk_start: z.int(),
          chunk_end: z.int(),
          checksum_sha256_base64: z.string().optional(),
          url: z.string(),
          expires_at: dateTimeWireSchema,
          headers: z.record(z.string(), z.string()).optional(),
        }),
      ),
    }),
  })
  .meta({ id: 'FileUpload' });

const readFields = (file: StoredFile) => ({
  ...storedFileFields(file),
  is_uploaded: file.isUploaded,
  created_at: isoDateTime(file.createdAt),
});

/** A downloadable as /v1 answers it (Polar's `DownloadableFileRead`): no public URL. */
export function downloadableWire(file: StoredFile): z.input<typeof downloadableWireSchema> {
  return { ...readFields(file), service: 'downloadable' as const };
}

/** A product media file (Polar's `ProductMediaFileRead`), with the URL anyone may fetch. */
export function productMediaWire(
  file: StoredFile,
  publicUrl: string,
): z.input<typeof productMediaWireSchema> {
  return {
    ...readFields(file),
    service: 'product_media' as const,
    public_url: filePublicUrl(file, publicUrl),
  };
}

/** An organization avatar (Polar's `OrganizationAvatarFileRead`). */
export function organizationAvatarWire(
  file: StoredFile,
  publicUrl: string,
): z.input<typeof organizationAvatarWireSchema> {
  return {
    ...readFields(file),
    service: 'organization_avatar' as const,
    public_url: filePublicUrl(file, publicUrl),
  };
}

/** A file as /v1 answers it (Polar's `FileRead`): the shape its service calls for. */
export function fileWire(file: StoredFile, publicUrl: string) {
  switch (file.service) {
    case 'product_media':
      return productMediaWire(file, publicUrl);
    case 'organization_avatar':
      return organizationAvatarWire(file, publicUrl);
    default:
      return downloadableWire(file);
  }
}
export type FileWire = ReturnType<typeof fileWire>;

/** One part's signed upload target (Polar's `S3FileUploadPart`). */
export interface PartUploadTarget {
  number: number;
  chunk_start: number;
  chunk_end: number;
  checksum_sha256_base64?: string;
  url: string;
  expires_at: string;
  headers?: Record<string, string>;
}

/** A new file and where to PUT its parts (Polar's `FileUpload`). */
export function fileUploadWire(
  file: StoredFile,
  upload: { id: string; parts: PartUploadTarget[] },
): z.input<typeof fileUploadWireSchema> {
  return {
    ...storedFileFields(file),
    is_uploaded: file.isUploaded,
    service: file.service,
    upload: { id: upload.id, path: file.path, parts: upload.parts },
  };
}
