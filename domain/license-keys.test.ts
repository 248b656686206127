import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  displayLicenseKey,
  generateLicenseKey,
  licenseKeyExpiry,
  licenseKeyRefusal,
} from './license-keys.ts';

describe('license keys', () => {
  it('are an upper-case UUID, after the upper-cased prefix when there is one', () => {
    assert.match(
      generateLicenseKey(null),
      /^[0-9A-F]{8}-[0-9A-F]{4}-4[0-9A-F]{3}-[0-9A-F]{4}-[0-9A-F]{12}$/,
    );
    assert.match(generateLicenseKey('tool'), /^TOOL-[0-9A-F]{8}-/);
  });

  it('are shown as their last six characters', () => {
    assert.equal(displayLicenseKey('TOOL-1234-ABCDEF123456'), '****-123456');
  });

  it('expire ttl days, months or years after the grant, or never', () => {
    const granted = new Date('2026-01-31T10:00:00Z');
    const cases = [
      [{ ttl: 10, timeframe: 'day' }, '2026-02-10T10:00:00.000Z'],
      [{ ttl: 1, timeframe: 'month' }, '2026-02-28T10:00:00.000Z'],
      [{ ttl: 13, timeframe: 'month' }, '2027-02-28T10:00:00.000Z'],
      [{ ttl: 2, timeframe: 'year' }, '2028-01-31T10:00:00.000Z'],
    ] as const;
    for (const [expires, expected] of cases) {
      assert.equal(licenseKeyExpiry(granted, expires)?.toISOString(), expected, expires.timeframe);
    }
    assert.equal(licenseKeyExpiry(granted, null), null);
  });

  it('are usable only while granted and unexpired', () => {
    const now = new Date('2026-03-01T00:00:00Z');
    assert.equal(licenseKeyRefusal({ status: 'granted', expiresAt: null }, now), null);
    assert.equal(
      licenseKeyRefusal({ status: 'revoked', expiresAt: null }, now),
      'License key is no longer active.',
    );
    assert.equal(
      licenseKeyRefusal({ status: 'granted', expiresAt: now }, now),
      'License key has expired.',
    );
  });
});
