import { randomBytes } from 'node:crypto';
import { rename, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { SMTPServer, type SMTPServerEnvelope } from 'smtp-server';
import type { CapturedMail } from '../integrations/mail/captured-mail.ts';
import { ensurePrivateDirectory } from './private-files.ts';

export interface SmtpCapture {
  /** What SMTP_URL points the API and worker at. */
  url: string;
  stop(): Promise<void>;
}

/**
 * An SMTP server on the loopback interface that accepts every mail, without authentication or
 * TLS, and writes each one to `directory` as JSON: the mail of `npm start` and `npm test`.
 */
export async function startSmtpCapture({
  directory,
  port = 0,
}: {
  directory: string;
  /** 0 (the default) takes a free port. */
  port?: number;
}): Promise<SmtpCapture> {
  ensurePrivateDirectory(directory);
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    // A client that lingers does not hold up stopping the stack.
    closeTimeout: 1000,
    onData(stream, session, callback) {
      captureMail(directory, stream, session.envelope).then(() => callback(), callback);
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      // From here on an error is one connection failing, which its client sees.
      server.on('error', () => {});
      resolve();
    });
  });
  const { port: listening } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${listening}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function captureMail(
  directory: string,
  stream: AsyncIterable<Buffer>,
  envelope: SMTPServerEnvelope,
): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  const receivedAt = new Date().toISOString();
  const id = `${receivedAt.replace(/[-:.]/g, '')}-${randomBytes(4).toString('hex')}`;
  const { messageId, subject, text, html } = parseMail(Buffer.concat(chunks));
  const mail: CapturedMail = {
    id,
    messageId,
    from: envelope.mailFrom ? envelope.mailFrom.address : '',
    to: envelope.rcptTo.map((recipient) => recipient.address),
    subject,
    text,
    html,
    receivedAt,
  };
  // Written whole, then renamed: a reader never sees half a file.
  const file = join(directory, `${id}.json`);
  await writeFile(`${file}.partial`, `${JSON.stringify(mail, null, 2)}\n`, { mode: 0o600 });
  await rename(`${file}.partial`, file);
}

/**
 * The parts of a MIME message the capture keeps. Handles what nodemailer writes: encoded-word
 * headers, 7bit, quoted-printable and base64 bodies, and nested multipart bodies.
 */
export function parseMail(
  raw: Buffer,
): Pick<CapturedMail, 'messageId' | 'subject' | 'text' | 'html'> {
  // One character per byte, so bodies can be decoded to bytes before their charset applies.
  const message = splitPart(raw.toString('latin1').replace(/\r\n/g, '\n'));
  const leaves = leafParts(message);
  const bodyOf = (type: string) => {
    const leaf = leaves.find(
      (part) =>
        contentType(part).type === type &&
        !/^attachment/i.test(part.headers.get('content-disposition') ?? ''),
    );
    return leaf ? decodeBody(leaf) : '';
  };
  return {
    messageId: message.headers.get('message-id') ?? '',
    subject: decodeHeader(message.headers.get('subject') ?? ''),
    text: bodyOf('text/plain'),
    html: bodyOf('text/html'),
  };
}

interface MimePart {
  /** Unfolded, by lower-case name; the first of repeated headers. */
  headers: Map<string, string>;
  /** Still transfer-encoded, one character per byte. */
  body: string;
}

function splitPart(part: string): MimePart {
  const blankLine = part.indexOf('\n\n');
  const head = blankLine === -1 ? part : part.slice(0, blankLine);
  const headers = new Map<string, string>();
  // A line that starts with white space continues the header before it.
  for (const line of head.replace(/\n(?=[ \t])/g, '').split('\n')) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    if (colon > 0 && !headers.has(name)) headers.set(name, line.slice(colon + 1).trim());
  }
  return { headers, body: blankLine === -1 ? '' : part.slice(blankLine + 2) };
}

function contentType(part: MimePart) {
  const value = part.headers.get('content-type') ?? 'text/plain';
  const parameter = (name: string) => new RegExp(`;\\s*${name}="?([^";]+)"?`, 'i').exec(value)?.[1];
  return {
    type: (value.split(';')[0] ?? '').trim().toLowerCase(),
    boundary: parameter('boundary'),
    charset: parameter('charset') ?? 'utf-8',
  };
}

/** The single parts of a message, depth first: a multipart body is opened up recursively. */
function leafParts(part: MimePart): MimePart[] {
  const { type, boundary } = contentType(part);
  if (!type.startsWith('multipart/') || !boundary) return [part];
  // Before the first delimiter is a preamble; after the closing one (`--boundary--`), an epilogue.
  const [, ...sections] = `\n${part.body}`.split(`\n--${boundary}`);
  const bodyParts = sections.filter((section) => !section.startsWith('--'));
  // Each section starts with the rest of its delimiter line.
  return bodyParts.flatMap((section) => leafParts(splitPart(section.replace(/^[^\n]*\n/, ''))));
}

function decodeBody(part: MimePart): string {
  const encoding = (part.headers.get('content-transfer-encoding') ?? '7bit').toLowerCase();
  const bytes =
    encoding === 'base64'
      ? Buffer.from(part.body, 'base64')
      : encoding === 'quoted-printable'
        ? quotedPrintableBytes(part.body)
        : Buffer.from(part.body, 'latin1');
  return new TextDecoder(contentType(part).charset).decode(bytes);
}

function quotedPrintableBytes(encoded: string): Buffer {
  const decoded = encoded
    .replace(/=\n/g, '') // soft line breaks
    .replace(/=([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  return Buffer.from(decoded, 'latin1');
}

/** Decodes RFC 2047 encoded words (`=?UTF-8?Q?...?=`, `=?UTF-8?B?...?=`) in a header value. */
function decodeHeader(value: string): string {
  return (
    Buffer.from(value, 'latin1')
      .toString('utf8')
      // White space between two encoded words only separates them.
      .replace(/(\?=)\s+(?==\?)/g, '$1')
      .replace(
        /=\?([^?]+)\?([bq])\?([^?]*)\?=/gi,
        (_, charset: string, kind: string, text: string) => {
          const bytes =
            kind.toLowerCase() === 'b'
              ? Buffer.from(text, 'base64')
              : quotedPrintableBytes(text.replace(/_/g, ' '));
          return new TextDecoder(charset).decode(bytes);
        },
      )
  );
}
