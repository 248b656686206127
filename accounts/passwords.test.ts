import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hashPassword, verifyPassword } from './passwords.ts';

describe('password hashing', () => {
  it('verifies the password it hashed and rejects another', async () => {
    const stored = await hashPassword('correct horse battery staple');
    assert.equal(await verifyPassword('correct horse battery staple', stored), true);
    assert.equal(await verifyPassword('correct horse battery stapler', stored), false);
  });

  it('salts every hash, so equal passwords store differently', async () => {
    assert.notEqual(await hashPassword('same password'), await hashPassword('same password'));
  });

  it('never stores the password itself', async () => {
    const stored = await hashPassword('visible-secret');
    assert.doesNotMatch(stored, /visible-secret/);
    assert.match(stored, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$[\w+/]+\$[\w+/]+$/);
  });

  it('treats a malformed stored hash as a mismatch', async () => {
    assert.equal(await verifyPassword('anything', 'not-a-hash'), false);
    assert.equal(
      await verifyPassword('anything', '$argon2id$v=19$m=19456,t=2,p=1$AAAA$BBBB'),
      false,
    );
  });
});
