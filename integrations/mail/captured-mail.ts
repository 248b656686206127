import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * One mail the capture server (devstack/smtp-capture.ts) received, kept as
 * `<directory>/<id>.json`.
 */
export interface CapturedMail {
  /** The receipt time then a random suffix, so file names sort by arrival. */
  id: string;
  /** The Message-ID header, angle brackets included. */
  messageId: string;
  /** The envelope's sender and recipients (MAIL FROM, RCPT TO): bare addresses. */
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  receivedAt: string;
}

/**
 * The mail the capture server wrote to `directory`, newest first: read by the development
 * outbox and by the tests.
 */
export async function readCapturedMails(
  directory: string,
  limit = Number.POSITIVE_INFINITY,
): Promise<CapturedMail[]> {
  // File names start with the receipt time, so their order is the order of arrival.
  const files = (await readdir(directory)).filter((file) => file.endsWith('.json')).sort();
  const newest = files.reverse().slice(0, limit);
  return Promise.all(
    newest.map(async (file) => JSON.parse(await readFile(join(directory, file), 'utf8'))),
  );
}
