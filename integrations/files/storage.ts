import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { type Readable, Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** One part of a multipart upload as the client planned it: bytes [chunkStart, chunkEnd). */
export interface PlannedPart {
  number: number;
  chunkStart: number;
  chunkEnd: number;
  sha256Base64: string | null;
}

/** A part as the client reports it when completing: the ETag its PUT answered. */
export interface CompletedPart {
  number: number;
  etag: string;
  sha256Base64: string | null;
}

/** A complete file in the storage. `etag` follows S3's multipart form: `"<md5 of md5s>-<parts>"`. */
export interface StoredObject {
  size: number;
  sha256Base64: string;
  sha256Hex: string;
  etag: string;
  lastModifiedAt: Date;
}

export type UploadRejection =
  | 'unknown_upload'
  | 'part_not_planned'
  | 'part_size'
  | 'part_checksum'
  | 'parts_mismatch'
  | 'missing_part'
  | 'etag_mismatch'
  | 'size_mismatch'
  | 'checksum_mismatch';

/** Bytes that do not match what the upload declared; nothing of them is kept. */
export class UploadRejected extends Error {
  override name = 'UploadRejected';
  readonly reason: UploadRejection;
  /** The part at fault, when one is. */
  readonly partNumber: number | undefined;

  constructor(reason: UploadRejection, message: string, partNumber?: number) {
    super(message);
    this.reason = reason;
    this.partNumber = partNumber;
  }
}

/** Where a client PUTs one part itself, and the headers it must send with it. */
export interface DirectPartTarget {
  url: string;
  headers: Record<string, string>;
}

/**
 * Where uploaded files' bytes live, keyed by the file's `path`. Uploads are multipart as on S3:
 * `startUpload` records the plan, `writePart` stores one verified part, `completeUpload` joins
 * the parts into the file only if every check passes (else the parts stay for another try).
 */
export interface FileStorage {
  /**
   * Records the plan. A storage that takes the parts itself (S3) answers, in plan order, where
   * to PUT each part (valid as long as the API's own part URLs, and only for the part's planned
   * size); otherwise the API takes them.
   */
  startUpload(key: string, parts: PlannedPart[]): Promise<DirectPartTarget[] | undefined>;
  /** Stores `part` (as planned) from `body`, which must be its length and match its checksum. */
  writePart(key: string, part: PlannedPart, body: Readable): Promise<{ etag: string }>;
  completeUpload(
    key: string,
    parts: CompletedPart[],
    expected: { size: number; sha256Base64: string | null },
  ): Promise<StoredObject>;
  /** The file's bytes, or null when there is no complete file under `key`. */
  read(key: string): Promise<{ size: number; stream: Readable } | null>;
  /** Removes the file and any upload in progress; nothing there is fine. */
  remove(key: string): Promise<void>;
}

/** The ETag S3 gives a part: its MD5, hex, in quotes. */
const quotedEtag = (md5: Buffer) => `"${md5.toString('hex')}"`;
const unquoted = (etag: string) => etag.trim().replace(/^"(.*)"$/, '$1');

/**
 * The storage on local disk, under `root`: `uploads/<key>/` holds a plan and the parts received
 * so far, `objects/<key>` each complete file. Writes go to a temporary name first, so a reader
 * never sees half a part or half a file.
 */
export function localDiskStorage(root: string): FileStorage {
  const base = resolve(root);
  /** `key` under the storage's `area` folder; a key reaching out of it is a bug, refused. */
  const inside = (area: 'uploads' | 'objects', key: string) => {
    const folder = resolve(base, area);
    const path = resolve(folder, key);
    if (!path.startsWith(folder + sep)) throw new Error(`Storage key escapes the storage: ${key}`);
    return path;
  };
  const uploadDir = (key: string) => inside('uploads', key);
  const objectPath = (key: string) => inside('objects', key);
  const partPath = (key: string, number: number) => join(uploadDir(key), `${number}.part`);
  const temporary = (path: string) => `${path}.${randomUUID()}.tmp`;

  async function readPlan(key: string): Promise<PlannedPart[]> {
    try {
      return JSON.parse(await readFile(join(uploadDir(key), 'plan.json'), 'utf8'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      throw new UploadRejected('unknown_upload', 'No upload is in progress for this file.');
    }
  }

  return {
    async startUpload(key, parts) {
      await mkdir(uploadDir(key), { recursive: true });
      await writeFile(join(uploadDir(key), 'plan.json'), JSON.stringify(parts));
      return undefined;
    },

    async writePart(key, part, body) {
      const { number } = part;
      const planned = (await readPlan(key)).find(
        (candidate) =>
          candidate.number === number &&
          candidate.chunkStart === part.chunkStart &&
          candidate.chunkEnd === part.chunkEnd &&
          candidate.sha256Base64 === part.sha256Base64,
      );
      if (!planned) {
        throw new UploadRejected('part_not_planned', `Part ${number} is not planned.`, number);
      }
      const length = planned.chunkEnd - planned.chunkStart;
      const md5 = createHash('md5');
      const sha256 = createHash('sha256');
      let received = 0;
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          received += chunk.length;
          if (received > length) {
            done(
              new UploadRejected('part_size', `Part ${number} must be ${length} bytes.`, number),
            );
            return;
          }
          md5.update(chunk);
          sha256.update(chunk);
          done(null, chunk);
        },
      });
      const destination = partPath(key, number);
      const pending = temporary(destination);
      try {
        await pipeline(body, counter, createWriteStream(pending));
        if (received !== length) {
          throw new UploadRejected('part_size', `Part ${number} must be ${length} bytes.`, number);
        }
        if (planned.sha256Base64 && sha256.digest('base64') !== planned.sha256Base64) {
          throw new UploadRejected(
            'part_checksum',
            `Part ${number} does not match its SHA-256 checksum.`,
            number,
          );
        }
        await rename(pending, destination);
      } finally {
        await rm(pending, { force: true });
      }
      return { etag: quotedEtag(md5.digest()) };
    },

    async completeUpload(key, parts, expected) {
      const plan = (await readPlan(key)).toSorted((a, b) => a.number - b.number);
      const reported = new Map(parts.map((part) => [part.number, part]));
      const samePlan =
        reported.size === parts.length &&
        parts.length === plan.length &&
        plan.every((part) => reported.has(part.number));
      if (!samePlan) {
        throw new UploadRejected('parts_mismatch', 'The parts must be exactly those planned.');
      }
      for (const part of plan) {
        try {
          await stat(partPath(key, part.number));
        } catch {
          throw new UploadRejected(
            'missing_part',
            `Part ${part.number} was not uploaded.`,
            part.number,
          );
        }
      }

      const destination = objectPath(key);
      await mkdir(resolve(destination, '..'), { recursive: true });
      const pending = temporary(destination);
      const whole = createHash('sha256');
      const partDigests: Buffer[] = [];
      let size = 0;
      const output = createWriteStream(pending);
      try {
        for (const part of plan) {
          const md5 = createHash('md5');
          const partSha256 = createHash('sha256');
          await pipeline(
            createReadStream(partPath(key, part.number)),
            new Transform({
              transform(chunk: Buffer, _encoding, done) {
                size += chunk.length;
                whole.update(chunk);
                md5.update(chunk);
                partSha256.update(chunk);
                done(null, chunk);
              },
            }),
            output,
            { end: false },
          );
          const digest = md5.digest();
          const report = reported.get(part.number) as CompletedPart;
          if (unquoted(report.etag) !== digest.toString('hex')) {
            throw new UploadRejected(
              'etag_mismatch',
              `Part ${part.number} has another ETag.`,
              part.number,
            );
          }
          if (report.sha256Base64 && report.sha256Base64 !== partSha256.digest('base64')) {
            throw new UploadRejected(
              'part_checksum',
              `Part ${part.number} does not match its SHA-256 checksum.`,
              part.number,
            );
          }
          partDigests.push(digest);
        }
        await closeStream(output);
        if (size !== expected.size) {
          throw new UploadRejected(
            'size_mismatch',
            `The parts hold ${size} bytes, not the declared ${expected.size}.`,
          );
        }
        const digest = whole.digest();
        const sha256Base64 = digest.toString('base64');
        if (expected.sha256Base64 && sha256Base64 !== expected.sha256Base64) {
          throw new UploadRejected(
            'checksum_mismatch',
            'The file does not match its declared SHA-256 checksum.',
          );
        }
        await rename(pending, destination);
        await rm(uploadDir(key), { recursive: true, force: true });
        const multipartMd5 = createHash('md5').update(Buffer.concat(partDigests)).digest('hex');
        return {
          size,
          sha256Base64,
          sha256Hex: digest.toString('hex'),
          etag: `"${multipartMd5}-${plan.length}"`,
          lastModifiedAt: (await stat(destination)).mtime,
        };
      } finally {
        output.destroy();
        await rm(pending, { force: true });
      }
    },

    async read(key) {
      try {
        const { size } = await stat(objectPath(key));
        return { size, stream: createReadStream(objectPath(key)) };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
    },

    async remove(key) {
      await rm(objectPath(key), { force: true });
      await rm(uploadDir(key), { recursive: true, force: true });
    },
  };
}

function closeStream(stream: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.once('error', reject);
    stream.end(resolve);
  });
}
