import type { Readable } from 'node:stream';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { RuntimeConfig } from '../../config/env.ts';
import { invalidField } from '../../core/errors.ts';
import { announceChange } from '../../db/change-notifications.ts';
import { Organization, StoredFile } from '../../db/entities/index.ts';
import { newId } from '../../db/ids.ts';
import { findPage, inList, type ListQuery, newestFirst } from '../../db/listing.ts';
import type { FileService } from '../../domain/files.ts';
import { humanReadableSize, uploadPlanProblem } from '../../domain/files.ts';
import { readSignedToken, signToken } from '../../domain/signed-tokens.ts';
import { s3Storage } from '../../integrations/files/s3-storage.ts';
import {
  type FileStorage,
  localDiskStorage,
  type PlannedPart,
  UploadRejected,
} from '../../integrations/files/storage.ts';
import { notPermitted, resourceNotFound } from '../errors.ts';
import { isoDateTime } from '../wire.ts';
import {
  type FileCreateInput,
  type FileUpdateInput,
  type FileUploadCompletedInput,
  filesBaseUrl,
  type PartUploadTarget,
} from './schemas.ts';

/** How long a part's upload URL stays valid (Polar's presigned S3 URLs: one hour). */
export const partUrlLifetimeMs = 60 * 60 * 1000;

/**
 * How long a new file waits for its upload to complete. Past this the upload is abandoned:
 * completing it is refused, and the maintenance purge deletes the file and its parts.
 */
export const uploadLifetimeMs = 24 * 60 * 60 * 1000;

/** Where files' bytes live: the S3 bucket when one is configured, else the local folder. */
export const fileStorage = (files: RuntimeConfig['files']): FileStorage =>
  files.s3 ? s3Storage(files.s3, partUrlLifetimeMs) : localDiskStorage(files.storageDir);

/**
 * The right to PUT one part of one file: what a part's upload URL carries, signed, since the
 * client PUTs without its token (as to S3's presigned URLs).
 */
export interface PartGrant {
  fileId: string;
  part: PlannedPart;
  /** Epoch milliseconds. */
  expiresAt: number;
}

const partGrantPurpose = 'tollgate file part upload';

/** The last path segment of a part's upload URL. */
export function signPartGrant(secret: string, grant: PartGrant): string {
  const { part } = grant;
  return signToken(secret, partGrantPurpose, [
    grant.fileId,
    part.number,
    part.chunkStart,
    part.chunkEnd,
    part.sha256Base64,
    grant.expiresAt,
  ]);
}

/** The grant a part URL carries, or null when it is malformed, forged or expired. */
export function readPartGrant(secret: string, token: string, now = Date.now()): PartGrant | null {
  const grant = readSignedToken(secret, partGrantPurpose, token);
  if (!Array.isArray(grant)) return null;
  const [fileId, number, chunkStart, chunkEnd, sha256Base64, expiresAt] = grant;
  if (expiresAt <= now) return null;
  return { fileId, part: { number, chunkStart, chunkEnd, sha256Base64 }, expiresAt };
}

/** A file's one multipart upload is named after the file. */
export const uploadIdOf = (file: StoredFile) => file.id;

/** How large files may be: each by its service, and all of an organization's together. */
export interface FileLimits {
  maxBytes: Record<FileService, number>;
  organizationMaxBytes: number;
}

const megabytes = (count: number) => count * 1024 * 1024;

/** Images have Polar's limits; downloadables and an organization's total are configured. */
export const fileLimits = (files: RuntimeConfig['files']): FileLimits => ({
  maxBytes: {
    downloadable: files.maxDownloadableBytes,
    product_media: megabytes(10),
    organization_avatar: megabytes(1),
  },
  organizationMaxBytes: files.organizationMaxBytes,
});

/**
 * The bytes an organization's files take or have reserved: uploaded ones and those still
 * uploading (abandoned uploads expire, see deleteAbandonedUploads), not deleted ones.
 */
async function organizationBytes(em: EntityManager, organizationId: string): Promise<number> {
  const [row] = await em.execute<{ bytes: string }[]>(
    'select coalesce(sum(size), 0) as bytes from files where organization_id = ? and deleted_at is null',
    [organizationId],
  );
  return Number(row?.bytes ?? 0);
}

/**
 * Makes an organization's file creations take turns until the transaction ends, so two cannot
 * both fit in the room left for one. An advisory lock: inserts elsewhere that refer to the
 * organization's row do not wait for it.
 */
async function lockOrganizationFiles(em: EntityManager, organizationId: string): Promise<void> {
  await em.execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [
    `files:${organizationId}`,
  ]);
}

/**
 * Registers a file and its upload plan; answers the file with a signed upload URL per part
 * (the storage's own, such as S3's presigned URLs, when it takes the parts itself).
 * The declared whole-file checksum is kept, as Polar does, and checked when the upload completes.
 * A file larger than its service allows, or than the room left of the organization's storage,
 * is refused (422); each part is then held to its planned size when it is uploaded.
 */
export async function createFile(
  em: EntityManager,
  storage: FileStorage,
  organizationId: string,
  input: FileCreateInput,
  limits: FileLimits,
  secret: string,
  publicUrl: string,
  now = Date.now(),
): Promise<{ file: StoredFile; uploadId: string; parts: PartUploadTarget[] }> {
  const maxBytes = limits.maxBytes[input.service];
  if (input.size > maxBytes) {
    throw invalidField(
      ['body', 'size'],
      `A file of this service may be at most ${humanReadableSize(maxBytes)}.`,
      'less_than_equal',
    );
  }
  const problem = uploadPlanProblem(input.size, input.upload.parts);
  if (problem) throw invalidField(['body', 'upload', 'parts', ...problem.at], problem.message);
  const plan: PlannedPart[] = input.upload.parts.map((part) => ({
    number: part.number,
    chunkStart: part.chunk_start,
    chunkEnd: part.chunk_end,
    sha256Base64: part.checksum_sha256_base64 ?? null,
  }));
  const expiresAt = now + partUrlLifetimeMs;
  const { file, directTargets } = await em.transactional(async (tx) => {
    await lockOrganizationFiles(tx, organizationId);
    const used = await organizationBytes(tx, organizationId);
    if (used + input.size > limits.organizationMaxBytes) {
      throw invalidField(
        ['body', 'size'],
        `The organization's files may take ${humanReadableSize(limits.organizationMaxBytes)} ` +
          `together; ${humanReadableSize(used)} are taken.`,
        'storage_limit',
      );
    }
    const id = newId();
    const checksum = input.checksum_sha256_base64 ?? null;
    const created = tx.create(StoredFile, {
      id,
      organization: tx.getReference(Organization, organizationId),
      name: input.name,
      // Keyed by organization, then file: renaming the file never moves its bytes.
      path: `${organizationId}/${id}`,
      mimeType: input.mime_type,
      size: input.size,
      service: input.service,
      version: input.version ?? null,
      checksumSha256Base64: checksum,
      checksumSha256Hex: checksum && Buffer.from(checksum, 'base64').toString('hex'),
      isUploaded: false,
    });
    await tx.flush();
    // Inside the transaction: a plan the storage cannot record leaves no file behind.
    const targets = await storage.startUpload(created.path, plan);
    return { file: created, directTargets: targets };
  });
  const parts = plan.map((part, index) => ({
    number: part.number,
    chunk_start: part.chunkStart,
    chunk_end: part.chunkEnd,
    ...(part.sha256Base64 && { checksum_sha256_base64: part.sha256Base64 }),
    url:
      directTargets?.[index]?.url ??
      `${filesBaseUrl(publicUrl)}uploads/${signPartGrant(secret, { fileId: file.id, part, expiresAt })}`,
    expires_at: isoDateTime(new Date(expiresAt)),
    ...(directTargets?.[index] && { headers: directTargets[index].headers }),
  }));
  return { file, uploadId: uploadIdOf(file), parts };
}

/** Stores one part PUT to its signed URL; answers the part's ETag. */
export async function uploadPart(
  em: EntityManager,
  storage: FileStorage,
  grant: PartGrant,
  body: Readable,
): Promise<{ etag: string }> {
  const file = await em.findOne(StoredFile, { id: grant.fileId, deletedAt: null });
  if (!file) throw resourceNotFound('File not found');
  if (file.isUploaded) throw notPermitted('The file is already uploaded.');
  try {
    return await storage.writePart(file.path, grant.part, body);
  } catch (error) {
    if (error instanceof UploadRejected) throw invalidField(['body'], error.message);
    throw error;
  }
}

/** The caller's file, not deleted; any other id is "not found". */
export async function getFile(
  em: EntityManager,
  organizationId: string,
  id: string,
): Promise<StoredFile> {
  const file = await em.findOne(StoredFile, {
    id,
    organization: organizationId,
    deletedAt: null,
  });
  if (!file) throw resourceNotFound('File not found');
  return file;
}

/**
 * Joins the uploaded parts into the file and records its checksums (SHA-256 as base64 and hex,
 * and the S3-style multipart ETag). Parts that do not add up to the declared file answer 422
 * and leave the file not uploaded.
 */
export async function completeUpload(
  em: EntityManager,
  storage: FileStorage,
  organizationId: string,
  id: string,
  input: FileUploadCompletedInput,
): Promise<StoredFile> {
  return em.transactional(async (tx) => {
    const file = await getFile(tx, organizationId, id);
    if (file.isUploaded) throw notPermitted('The file is already uploaded.');
    if (file.createdAt.getTime() + uploadLifetimeMs <= Date.now()) {
      throw notPermitted('The upload has expired; create the file again.');
    }
    if (input.id !== uploadIdOf(file)) {
      throw invalidField(['body', 'id'], 'This is not the id of the upload of this file.');
    }
    if (input.path !== file.path) {
      throw invalidField(['body', 'path'], 'This is not the path of this file.');
    }
    const parts = input.parts.map((part) => ({
      number: part.number,
      etag: part.checksum_etag,
      sha256Base64: part.checksum_sha256_base64,
    }));
    try {
      const stored = await storage.completeUpload(file.path, parts, {
        size: file.size,
        sha256Base64: file.checksumSha256Base64 ?? null,
      });
      file.checksumEtag = stored.etag;
      file.checksumSha256Base64 = stored.sha256Base64;
      file.checksumSha256Hex = stored.sha256Hex;
      file.lastModifiedAt = stored.lastModifiedAt;
      file.isUploaded = true;
    } catch (error) {
      if (error instanceof UploadRejected)
        throw invalidField(rejectionLoc(error, input), error.message);
      throw error;
    }
    return file;
  });
}

/** Where in the completion request a rejection points: the part at fault when there is one. */
function rejectionLoc(error: UploadRejected, input: FileUploadCompletedInput): (string | number)[] {
  const index = input.parts.findIndex((part) => part.number === error.partNumber);
  if (index < 0) return ['body', 'parts'];
  const field = error.reason === 'etag_mismatch' ? 'checksum_etag' : 'checksum_sha256_base64';
  return error.reason === 'missing_part'
    ? ['body', 'parts', index]
    : ['body', 'parts', index, field];
}

/** Abandoned uploads deleted per statement, so one purge step never holds a huge list. */
const abandonedBatchSize = 500;

/**
 * Deletes the files whose upload was abandoned as of `now` (not completed within
 * `uploadLifetimeMs`): each row, then its parts in the storage. A row is deleted only while
 * still not uploaded, so a file completed meanwhile keeps its bytes; a retry after a failure
 * finds the rest. Answers how many were deleted.
 */
export async function deleteAbandonedUploads(
  em: EntityManager,
  storage: FileStorage,
  now: Date,
): Promise<number> {
  const abandonedBefore = new Date(now.getTime() - uploadLifetimeMs);
  let deleted = 0;
  for (;;) {
    const paths = await em.execute<{ path: string }[]>(
      `delete from files where id in (
         select id from files
         where is_uploaded = false and deleted_at is null and created_at < ?
         limit ?
       ) and is_uploaded = false
       returning path`,
      [abandonedBefore.toISOString(), abandonedBatchSize],
    );
    for (const { path } of paths) await storage.remove(path);
    deleted += paths.length;
    if (paths.length < abandonedBatchSize) return deleted;
  }
}

/** The caller's uploaded files, newest first, optionally only those with the given ids. */
export function listFiles(
  em: EntityManager,
  organizationId: string,
  { ids, page }: ListQuery<{ ids: string[] }>,
): Promise<[StoredFile[], number]> {
  return findPage(em, StoredFile, {
    where: [{ organization: organizationId, deletedAt: null, isUploaded: true }, inList('id', ids)],
    thenBy: newestFirst,
    page,
  });
}

/** Renames a file or sets its version; null leaves a field as it is (as Polar does). */
export function updateFile(
  em: EntityManager,
  organizationId: string,
  id: string,
  input: FileUpdateInput,
): Promise<StoredFile> {
  return em.transactional(async (tx) => {
    const file = await getFile(tx, organizationId, id);
    if (input.name) file.name = input.name;
    if (input.version != null) file.version = input.version;
    // Products embed their media files.
    await announceChange(tx, 'catalog', organizationId);
    return file;
  });
}

/** Marks the file deleted and removes its bytes (the row stays for what referred to it). */
export async function deleteFile(
  em: EntityManager,
  storage: FileStorage,
  organizationId: string,
  id: string,
): Promise<void> {
  const file = await em.transactional(async (tx) => {
    const found = await getFile(tx, organizationId, id);
    found.deletedAt = new Date();
    await announceChange(tx, 'catalog', organizationId);
    return found;
  });
  await storage.remove(file.path);
}

/**
 * A product media or avatar file's bytes for anyone (its `public_url`); downloadables, files
 * not uploaded and deleted ones are "not found".
 */
export async function readPublicFile(em: EntityManager, storage: FileStorage, id: string) {
  const file = await em.findOne(StoredFile, {
    id,
    deletedAt: null,
    isUploaded: true,
    service: { $in: ['product_media', 'organization_avatar'] },
  });
  const content = file && (await storage.read(file.path));
  if (!file || !content) throw resourceNotFound('File not found');
  return { file, ...content };
}
