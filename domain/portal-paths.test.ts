import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { portalPath } from './portal-paths.ts';

describe('portalPath', () => {
  const accepted = [
    '/portal',
    '/portal/',
    '/portal/subscriptions/0d7c3c1e-6b0e-4d0e-9f5e-2f0c2b1f6a11',
    '/portal/orders?page=2',
    '/portal#payment-methods',
  ];
  for (const path of accepted) {
    it(`accepts ${path}`, () => assert.equal(portalPath(path), path));
  }

  const refused = [
    '',
    '/',
    'portal',
    '/portals',
    '/portalx/a',
    '/dashboard',
    'https://evil.example/portal',
    '//evil.example/portal',
    '/portal//evil.example',
    '/portal/../dashboard',
    '/portal/%2e%2e/dashboard',
    '/portal\\evil',
    '/portal/a b',
    '/portal/\nSet-Cookie',
    'javascript:alert(1)',
  ];
  for (const path of refused) {
    it(`refuses ${JSON.stringify(path)}`, () => assert.equal(portalPath(path), null));
  }
});
