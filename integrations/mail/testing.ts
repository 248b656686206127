import { setTimeout as sleep } from 'node:timers/promises';
import { type CapturedMail, readCapturedMails } from './captured-mail.ts';

/**
 * Waits for a mail to `to` (and with a subject matching `subject`) in the test run's capture
 * directory, MAIL_CAPTURE_DIR, and answers the newest such mail.
 */
export async function waitForMail({
  to,
  subject,
  timeoutMs = 10_000,
}: {
  to: string;
  subject?: RegExp;
  timeoutMs?: number;
}): Promise<CapturedMail> {
  const directory = process.env.MAIL_CAPTURE_DIR;
  if (!directory) throw new Error('MAIL_CAPTURE_DIR is not set: run the tests with `npm test`');
  const recipient = to.toLowerCase();
  const matches = (mail: CapturedMail) =>
    mail.to.some((address) => address.toLowerCase() === recipient) &&
    (!subject || subject.test(mail.subject));
  const deadline = Date.now() + timeoutMs;
  do {
    const found = (await readCapturedMails(directory)).find(matches);
    if (found) return found;
    await sleep(100);
  } while (Date.now() < deadline);
  const about = subject ? ` with a subject matching ${subject}` : '';
  throw new Error(`No mail to ${to}${about} arrived within ${timeoutMs} ms`);
}

/** The http(s) links in a mail's text, in order: every mail carries its links in its text part. */
export function extractLinks(mail: Pick<CapturedMail, 'text'>): string[] {
  return mail.text.match(/https?:\/\/[^\s<>"]+/g) ?? [];
}

/** Every mail to `to` (and with a subject matching `subject`) captured so far, newest first. */
export async function capturedMailsTo(to: string, subject?: RegExp): Promise<CapturedMail[]> {
  const directory = process.env.MAIL_CAPTURE_DIR;
  if (!directory) throw new Error('MAIL_CAPTURE_DIR is not set: run the tests with `npm test`');
  const recipient = to.toLowerCase();
  return (await readCapturedMails(directory)).filter(
    (mail) =>
      mail.to.some((address) => address.toLowerCase() === recipient) &&
      (!subject || subject.test(mail.subject)),
  );
}
