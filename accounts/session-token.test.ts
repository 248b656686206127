import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generateSessionToken, sessionIdFromToken } from './session-token.ts';

describe('session tokens', () => {
  it('are 32 base32 characters of fresh randomness each time', () => {
    const tokens = new Set(Array.from({ length: 1000 }, generateSessionToken));
    assert.equal(tokens.size, 1000);
    for (const token of tokens) assert.match(token, /^[a-z2-7]{32}$/);
  });

  it('are stored as their SHA-256, which does not reveal them', () => {
    const token = generateSessionToken();
    const id = sessionIdFromToken(token);
    assert.match(id, /^[0-9a-f]{64}$/);
    assert.equal(sessionIdFromToken(token), id);
    assert.ok(!id.includes(token));
  });

  it('hashes a known token to its known SHA-256', () => {
    assert.equal(
      sessionIdFromToken('abc'),
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });
});
