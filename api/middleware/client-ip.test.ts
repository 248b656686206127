import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { loadRuntimeConfig } from '../../config/env.ts';
import { startTestApi } from '../testing.ts';
import { clientAddress } from './client-ip.ts';

/** A loopback address of this test's own: the per-IP counters it fills are nobody else's. */
const ownLoopback = () => `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
const ownClient = () => `198.18.${randomInt(0, 256)}.${randomInt(1, 255)}`;

/**
 * POST /api/auth/reset-password (its only limit is per IP: 2 per 15 minutes at scale 0.1)
 * from `peer`, with the X-Forwarded-For an attacker chose; answers the status.
 */
function resetPassword(apiUrl: string, peer: string, forwardedFor?: string): Promise<number> {
  const body = JSON.stringify({ token: 'not-a-token', newPassword: 'whatever-password' });
  return new Promise((resolve, reject) => {
    const sent = request(
      `${apiUrl}/api/auth/reset-password`,
      {
        method: 'POST',
        localAddress: peer,
        headers: {
          'content-type': 'application/json',
          ...(forwardedFor && { 'x-forwarded-for': forwardedFor }),
        },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
}

/** The API with the auth limits scaled down and TOLLGATE_TRUSTED_PROXIES as given. */
function startApi(trustedProxies?: string) {
  return startTestApi(
    loadRuntimeConfig({
      ...process.env,
      NODE_ENV: 'production',
      TOLLGATE_AUTH_RATE_LIMIT: '0.1',
      TOLLGATE_TRUSTED_PROXIES: trustedProxies ?? '',
    }),
  );
}

describe('the client address of rate limits (TOLLGATE_TRUSTED_PROXIES)', () => {
  describe('unset (the default, also in production)', () => {
    let api: Awaited<ReturnType<typeof startTestApi>>;
    before(async () => {
      api = await startApi();
    });
    after(() => api.close());

    it('ignores X-Forwarded-For: a client cannot pick a new address to escape its limit', async () => {
      const attacker = ownLoopback();
      assert.notEqual(await resetPassword(api.url, attacker, ownClient()), 429);
      assert.notEqual(await resetPassword(api.url, attacker, ownClient()), 429);
      assert.equal(await resetPassword(api.url, attacker, ownClient()), 429);
      assert.equal(await resetPassword(api.url, attacker, `${ownClient()}, ${ownClient()}`), 429);
    });
  });

  describe('naming the proxy by address', () => {
    const proxy = ownLoopback();
    let api: Awaited<ReturnType<typeof startTestApi>>;
    before(async () => {
      api = await startApi(`10.0.0.0/8, ${proxy}`);
    });
    after(() => api.close());

    it('takes the client from the address the proxy appended; what the client wrote is ignored', async () => {
      const client = ownClient();
      assert.notEqual(await resetPassword(api.url, proxy, client), 429);
      assert.notEqual(await resetPassword(api.url, proxy, `${ownClient()}, ${client}`), 429);
      assert.equal(await resetPassword(api.url, proxy, `${ownClient()}, ${client}`), 429);
      // Another client behind the same proxy has limits of its own.
      assert.notEqual(await resetPassword(api.url, proxy, ownClient()), 429);
    });

    it('ignores the header from a peer that is not a listed proxy', async () => {
      const attacker = ownLoopback();
      assert.notEqual(await resetPassword(api.url, attacker, ownClient()), 429);
      assert.notEqual(await resetPassword(api.url, attacker, ownClient()), 429);
      assert.equal(await resetPassword(api.url, attacker, ownClient()), 429);
    });
  });

  describe('counting proxy hops', () => {
    let api: Awaited<ReturnType<typeof startTestApi>>;
    before(async () => {
      api = await startApi('1');
    });
    after(() => api.close());

    it('believes only the entry the one proxy appended', async () => {
      const client = ownClient();
      const proxy = ownLoopback();
      assert.notEqual(await resetPassword(api.url, proxy, `${ownClient()}, ${client}`), 429);
      assert.notEqual(await resetPassword(api.url, proxy, `${ownClient()}, ${client}`), 429);
      assert.equal(await resetPassword(api.url, proxy, `${ownClient()}, ${client}`), 429);
    });
  });
});

describe('clientAddress', () => {
  const cases: [string, Parameters<typeof clientAddress>, string][] = [
    ['no trusted proxies: the peer', [undefined, '10.0.0.2', '203.0.113.7'], '10.0.0.2'],
    ['an IPv4 peer on a dual-stack socket', [undefined, '::ffff:10.0.0.2', ''], '10.0.0.2'],
    ['one hop', [{ hops: 1 }, '10.0.0.2', '6.6.6.6, 203.0.113.7'], '203.0.113.7'],
    ['two hops', [{ hops: 2 }, '10.0.0.2', '6.6.6.6, 203.0.113.7, 10.0.0.3'], '203.0.113.7'],
    [
      'more hops than entries: the leftmost',
      [{ hops: 3 }, '10.0.0.2', '203.0.113.7'],
      '203.0.113.7',
    ],
    ['hops, no header: the peer', [{ hops: 1 }, '10.0.0.2', ''], '10.0.0.2'],
    [
      'a listed proxy chain, right to left',
      [
        { networks: [{ address: '10.0.0.0', prefix: 8, family: 'ipv4' }] },
        '10.0.0.2',
        '6.6.6.6, 203.0.113.7, 10.1.2.3',
      ],
      '203.0.113.7',
    ],
    [
      'an unlisted peer: the header is ignored',
      [
        { networks: [{ address: '10.0.0.0', prefix: 8, family: 'ipv4' }] },
        '192.168.1.1',
        '203.0.113.7',
      ],
      '192.168.1.1',
    ],
    [
      'an IPv6 proxy, an entry with brackets and a port',
      [
        { networks: [{ address: 'fd00::', prefix: 8, family: 'ipv6' }] },
        'fd00::2',
        '[2001:db8::7]:4711',
      ],
      '2001:db8::7',
    ],
    [
      'an entry that is no address: the proxy that wrote it',
      [{ hops: 1 }, '10.0.0.2', '6.6.6.6, unknown'],
      '10.0.0.2',
    ],
  ];
  for (const [name, args, expected] of cases) {
    it(name, () => assert.equal(clientAddress(...args), expected));
  }
});
