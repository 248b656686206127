/**
 * What the invoice tests read of a rendered PDF (its text, its images), and a logo uploaded the
 * way an organization's own files are, for the invoice to print.
 */
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { getDocument, OPS } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { StoredFile } from '../../db/entities/index.ts';
import { filePublicUrl } from '../files/schemas.ts';
import { fileStorage } from '../files/service.ts';
import type { TestApi } from '../testing.ts';

/** pdfjs reads the standard fonts' metrics from its own folder (silences its warning). */
const standardFontDataUrl = `${join(
  dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json')),
  'standard_fonts',
)}/`;

/** The text of every page of a PDF, each text run on its own line (blank runs left out). */
export async function pdfText(bytes: ArrayBuffer): Promise<string> {
  const pdf = await getDocument({ data: new Uint8Array(bytes), standardFontDataUrl }).promise;
  const pages: string[] = [];
  for (let number = 1; number <= pdf.numPages; number += 1) {
    const content = await (await pdf.getPage(number)).getTextContent();
    const runs = content.items.map((item) => ('str' in item ? item.str : ''));
    pages.push(runs.filter((run) => run.trim()).join('\n'));
  }
  return pages.join('\n');
}

/** How many images the PDF's first page paints. */
export async function pdfImages(bytes: ArrayBuffer): Promise<number> {
  const pdf = await getDocument({ data: new Uint8Array(bytes), standardFontDataUrl }).promise;
  const operators = await (await pdf.getPage(1)).getOperatorList();
  return operators.fnArray.filter((op) => op === OPS.paintImageXObject).length;
}

/** A 1×1 PNG (a red dot). */
export const dotPng = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
  'base64',
);

/**
 * `png` stored as the organization's avatar, as a finished upload leaves it: answers its public
 * URL, the logo URL invoices print from.
 */
export async function uploadedLogoUrl(
  api: TestApi,
  organizationId: string,
  png: Buffer = dotPng,
): Promise<string> {
  const path = `${organizationId}/${randomUUID()}/logo.png`;
  const storage = fileStorage(api.config.files);
  const part = { number: 1, chunkStart: 0, chunkEnd: png.length, sha256Base64: null };
  await storage.startUpload(path, [part]);
  const { etag } = await storage.writePart(path, part, Readable.from([png]));
  await storage.completeUpload(path, [{ number: 1, etag, sha256Base64: null }], {
    size: png.length,
    sha256Base64: null,
  });
  const em = api.orm.em.fork();
  const file = em.create(StoredFile, {
    organization: organizationId,
    name: 'logo.png',
    path,
    mimeType: 'image/png',
    size: png.length,
    service: 'organization_avatar',
    isUploaded: true,
  });
  await em.flush();
  return filePublicUrl(file, api.config.api.publicUrl);
}
