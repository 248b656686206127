import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isInternalAddress } from './address-guard.ts';
import { postWebhook } from './post.ts';
import { signWebhook } from './signing.ts';

/** [address, internal?, why] */
const addresses: [string, boolean, string][] = [
  ['127.0.0.1', true, 'loopback'],
  ['10.1.2.3', true, 'private'],
  ['169.254.169.254', true, 'cloud metadata'],
  ['100.64.0.1', true, 'carrier-grade NAT'],
  ['93.184.216.34', false, 'public IPv4'],
  ['::1', true, 'IPv6 loopback'],
  ['::', true, 'unspecified'],
  ['::127.0.0.1', true, 'IPv4-compatible (deprecated)'],
  ['fd00::1', true, 'unique local'],
  ['fe80::1%eth0', true, 'link-local with a zone'],
  ['2606:4700::1111', false, 'public IPv6'],
  // IPv4-mapped ::ffff:0:0/96, dotted and hex.
  ['::ffff:127.0.0.1', true, 'mapped loopback, dotted'],
  ['::ffff:7f00:1', true, 'mapped loopback, hex (as URLs normalize it)'],
  ['::ffff:a9fe:a9fe', true, 'mapped metadata service'],
  ['::ffff:8.8.8.8', false, 'mapped public'],
  ['::ffff:0:a00:1', true, 'IPv4-translated private'],
  // NAT64 64:ff9b::/96: a translator reaches the embedded IPv4.
  ['64:ff9b::7f00:1', true, 'NAT64 to loopback'],
  ['64:ff9b::10.0.0.1', true, 'NAT64 to private, dotted'],
  ['64:ff9b::a9fe:a9fe', true, 'NAT64 to the metadata service'],
  ['64:ff9b::808:808', false, 'NAT64 to public'],
  ['64:ff9b:1::808:808', true, 'local-use NAT64'],
  // 6to4 2002::/16: the IPv4 in bits 16–47.
  ['2002:7f00:1::', true, '6to4 loopback'],
  ['2002:c0a8:101::1', true, '6to4 private'],
  ['2002:808:808::1', false, '6to4 public'],
  // Teredo 2001::/32: the server in bits 32–63, the client inverted in the last 32.
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', true, 'Teredo client 127.0.0.1'],
  ['2001:0:a00:1::f7f7:f7f7', true, 'Teredo server 10.0.0.1'],
  ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', false, 'Teredo, both public'],
  ['2001:db8::1', true, 'documentation'],
  ['not-an-address', true, 'not an address'],
];

describe('webhook address guard', () => {
  for (const [address, internal, why] of addresses) {
    it(`${internal ? 'refuses' : 'allows'} ${address} (${why})`, () => {
      assert.equal(isInternalAddress(address), internal);
    });
  }

  it('refuses to post to an endpoint URL naming an internal IPv4 through NAT64 or 6to4', async () => {
    const body = '{}';
    const headers = signWebhook(`whsec_${'s'.repeat(32)}`, 'evt', new Date(), body);
    for (const url of [
      'http://[64:ff9b::a9fe:a9fe]/latest/meta-data/',
      'http://[64:ff9b::127.0.0.1]:8080/',
      'http://[2002:a00:1::]/',
      'http://[::ffff:127.0.0.1]/',
    ]) {
      const outcome = await postWebhook(url, body, headers, {
        timeoutMs: 5000,
        guardAddresses: true,
      });
      assert.equal(outcome.succeeded, false, url);
      assert.match(outcome.error ?? '', /internal address: refused/, url);
    }
  });
});
