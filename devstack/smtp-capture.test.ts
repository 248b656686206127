import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createMailActivities, messageIdFor } from '../activities/mail/index.ts';
import { type CapturedMail, readCapturedMails } from '../integrations/mail/captured-mail.ts';
import { createMailer, type Mailer } from '../integrations/mail/transport.ts';
import { parseMail, type SmtpCapture, startSmtpCapture } from './smtp-capture.ts';

const from = 'Tollgate <no-reply@tollgate.local>';

describe('SMTP capture server', () => {
  const directory = mkdtempSync(join(tmpdir(), 'tollgate-mail-'));
  let capture: SmtpCapture;
  let mailer: Mailer;
  before(async () => {
    capture = await startSmtpCapture({ directory });
    mailer = createMailer({ smtpUrl: capture.url, from });
  });
  after(async () => {
    await capture.stop();
    rmSync(directory, { recursive: true });
  });

  it('writes what the real transport sent to a JSON file of its own', async () => {
    // Non-ASCII and a line longer than SMTP allows make nodemailer encode both parts and the subject.
    const url = `https://tollgate.example/verify?token=${'t'.repeat(120)}&next=%2F`;
    const mail = {
      to: 'ada@example.com',
      subject: 'Bestätigen Sie Ihre E-Mail-Adresse – ein sehr langer Betreff, der umbrochen wird',
      text: `Grüße!\n\nVerify:\n${url}\n`,
      html: `<p>Grüße! <a href="${url.replace('&', '&amp;')}">Verify</a></p>`,
      messageId: '<capture-test-1@tollgate.local>',
    };
    const sent = await mailer.send(mail);
    assert.equal(sent.messageId, mail.messageId);

    const files = readdirSync(directory);
    const captured = files
      .map((file) => JSON.parse(readFileSync(join(directory, file), 'utf8')) as CapturedMail)
      .find((candidate) => candidate.messageId === mail.messageId);
    assert.ok(captured, 'a file for the mail, written before the server accepted it');
    assert.ok(files.includes(`${captured.id}.json`));
    assert.equal(captured.from, 'no-reply@tollgate.local');
    assert.deepEqual(captured.to, ['ada@example.com']);
    assert.equal(captured.subject, mail.subject);
    assert.equal(captured.text, mail.text);
    assert.equal(captured.html, mail.html);
    assert.ok(Date.now() - Date.parse(captured.receivedAt) < 10_000);
  });

  it('keeps the Message-ID derived from the id on every send of the same mail', async () => {
    const { sendEmail } = createMailActivities(mailer);
    const message = { id: `retry:${Date.now()}`, to: 'retry@example.com', subject: 'Again' };
    await sendEmail({ ...message, text: 'first attempt', html: '<p>first attempt</p>' });
    await sendEmail({ ...message, text: 'second attempt', html: '<p>second attempt</p>' });
    const sent = (await readCapturedMails(directory)).filter((mail) => mail.subject === 'Again');
    assert.deepEqual(sent.map((mail) => mail.text).sort(), ['first attempt', 'second attempt']);
    const messageId = messageIdFor(message.id, from);
    assert.deepEqual(
      sent.map((mail) => mail.messageId),
      [messageId, messageId],
    );
    assert.match(messageId, /^<[0-9a-f]{32}@tollgate\.local>$/);
  });
});

describe('parsing a captured mail', () => {
  const crlf = (lines: string[]) => Buffer.from(lines.join('\r\n'), 'latin1');

  it('decodes a single base64 part and a folded subject of encoded words', () => {
    const parsed = parseMail(
      crlf([
        'Message-ID: <one@x>',
        'Subject: =?UTF-8?B?R3LDvMOfZQ==?=',
        ' =?UTF-8?Q?_aus_K=C3=B6ln?= and more',
        'Content-Type: text/plain; charset=utf-8',
        'Content-Transfer-Encoding: base64',
        '',
        Buffer.from('Grüße\naus Köln').toString('base64'),
        '',
      ]),
    );
    assert.deepEqual(parsed, {
      messageId: '<one@x>',
      subject: 'Grüße aus Köln and more',
      text: 'Grüße\naus Köln',
      html: '',
    });
  });

  it('finds the text and HTML parts nested inside multipart/mixed, skipping attachments', () => {
    const parsed = parseMail(
      crlf([
        'Subject: Invoice',
        'Content-Type: multipart/mixed; boundary="outer"',
        '',
        'This is the preamble.',
        '--outer',
        'Content-Type: multipart/alternative;',
        ' boundary=inner',
        '',
        '--inner',
        'Content-Type: text/plain; charset=utf-8',
        'Content-Transfer-Encoding: quoted-printable',
        '',
        'Total: 12 =E2=82=AC, a line that is long enough to need a soft line break so=',
        ' it continues.',
        '--inner',
        'Content-Type: text/html; charset=iso-8859-1',
        '',
        '<p>Total: 12 EUR</p>',
        '--inner--',
        '--outer',
        'Content-Type: text/plain',
        'Content-Disposition: attachment; filename=notes.txt',
        '',
        'not the body',
        '--outer--',
        'The epilogue.',
      ]),
    );
    assert.equal(parsed.subject, 'Invoice');
    assert.equal(parsed.messageId, '');
    assert.equal(
      parsed.text,
      'Total: 12 €, a line that is long enough to need a soft line break so it continues.',
    );
    assert.equal(parsed.html, '<p>Total: 12 EUR</p>');
  });
});
