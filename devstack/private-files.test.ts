import assert from 'node:assert/strict';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createMailer } from '../integrations/mail/transport.ts';
import { startSmtpCapture } from './smtp-capture.ts';
import { Supervisor, waitUntilReady } from './supervisor.ts';

const modeOf = (path: string) => statSync(path).mode & 0o777;

/**
 * Another account on the machine must not read logs (client secrets, request ids) or captured
 * mail (reset links): the folders are 700 and the files 600, also where an earlier version
 * left them world-readable.
 */
describe('logs and captured mail are private', () => {
  const root = mkdtempSync(join(tmpdir(), 'tollgate-private-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  /** A folder (with a file in it) as an earlier version left it: readable by everyone. */
  function openFolder(name: string, file: string) {
    const folder = join(root, name);
    mkdirSync(folder, { mode: 0o755 });
    chmodSync(folder, 0o755);
    writeFileSync(join(folder, file), 'old\n', { mode: 0o644 });
    return folder;
  }

  it('keeps the log folder and the log files of services to their owner', async () => {
    const folder = openFolder('logs', 'api.log');
    const supervisor = new Supervisor(() => {});
    const logFile = join(folder, 'api.log');
    supervisor.spawn({
      name: 'logger',
      command: process.execPath,
      args: ['-e', "console.log('a client secret'); setInterval(() => {}, 1000)"],
      logFile,
    });
    const newLog = join(folder, 'worker.log');
    supervisor.spawn({ name: 'new', command: process.execPath, args: ['-e', ''], logFile: newLog });
    try {
      await waitUntilReady('the log line', async () => statSync(logFile).size > 4);
      assert.equal(modeOf(folder), 0o700);
      assert.equal(modeOf(logFile), 0o600);
      assert.equal(modeOf(newLog), 0o600);
    } finally {
      await supervisor.stopAll();
    }
  });

  it('makes only the folder private, not the parents it makes on the way', async () => {
    const logs = join(root, 'data', 'test-logs');
    const supervisor = new Supervisor(() => {});
    supervisor.spawn({
      name: 'quiet',
      command: process.execPath,
      args: ['-e', ''],
      logFile: join(logs, 'quiet.log'),
    });
    await supervisor.stopAll();
    assert.equal(modeOf(logs), 0o700);
    const plain = join(root, 'plain');
    mkdirSync(plain);
    assert.equal(modeOf(join(root, 'data')), modeOf(plain));
  });

  it('keeps the mail folder and every captured mail to their owner', async () => {
    const folder = openFolder('mail', 'old.json');
    const capture = await startSmtpCapture({ directory: folder });
    try {
      const mailer = createMailer({
        smtpUrl: capture.url,
        from: 'Tollgate <no-reply@tollgate.local>',
      });
      await mailer.send({
        to: 'ada@example.com',
        subject: 'Reset your password',
        text: 'https://tollgate.example/reset?token=secret',
        html: '<p>reset</p>',
        messageId: '<private-files@tollgate.local>',
      });
      assert.equal(modeOf(folder), 0o700);
      const captured = readdirSync(folder).filter((file) => file !== 'old.json');
      assert.equal(captured.length, 1);
      assert.equal(modeOf(join(folder, captured[0] ?? '')), 0o600);
    } finally {
      await capture.stop();
    }
  });
});
