import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { readDownload, signDownload } from './downloads.ts';

const secret = 'a-secret-of-at-least-thirty-two-characters';

describe('download URL grants', () => {
  const grant = { downloadableId: randomUUID(), expiresAt: Date.parse('2026-11-22T21:00:00Z') };
  const token = signDownload(secret, grant);

  it('read back what was signed until they expire', () => {
    assert.deepEqual(readDownload(secret, token, grant.expiresAt - 1), grant);
    assert.equal(readDownload(secret, token, grant.expiresAt), null);
  });

  it('refuse a changed payload, another secret and malformed tokens', () => {
    const [, signature] = token.split('.');
    const longer = Buffer.from(JSON.stringify([grant.downloadableId, grant.expiresAt + 3_600_000]));
    const before = grant.expiresAt - 1;
    assert.equal(
      readDownload(secret, `${longer.toString('base64url')}.${signature}`, before),
      null,
    );
    assert.equal(readDownload(`${secret}-other`, token, before), null);
    for (const malformed of ['', 'abc', `${token}.extra`, '.x']) {
      assert.equal(readDownload(secret, malformed, before), null, malformed);
    }
  });
});
