import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newId } from './ids.ts';

describe('newId', () => {
  it('is a version 7 UUID with the RFC 9562 variant', () => {
    assert.match(newId(), /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('sorts by creation time', () => {
    const earlier = newId(Date.parse('2026-01-01T00:00:00Z'));
    const later = newId(Date.parse('2026-01-01T00:00:00.001Z'));
    assert.ok(earlier < later);
  });

  it('does not repeat within the same millisecond', () => {
    const now = Date.now();
    const ids = new Set(Array.from({ length: 1000 }, () => newId(now)));
    assert.equal(ids.size, 1000);
  });
});
