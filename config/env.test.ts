import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { inspect } from 'node:util';
import { ConfigurationError, loadConfig, loadRuntimeConfig } from './env.ts';

describe('configuration', () => {
  it('runs on embedded defaults when nothing is set', () => {
    const config = loadConfig({});
    assert.equal(config.env, 'development');
    assert.equal(config.api.port, 3000);
    assert.equal(config.api.publicUrl, 'http://localhost:3000');
    assert.equal(config.database.url, undefined);
    assert.equal(config.temporal.address, undefined);
    assert.deepEqual(config.mail, {
      smtpUrl: undefined,
      from: 'Tollgate <no-reply@tollgate.local>',
      captureDir: undefined,
    });
  });

  it('treats an empty variable as unset', () => {
    assert.equal(loadConfig({ DATABASE_URL: '' }).database.url, undefined);
  });

  const badValues: [string, string, RegExp][] = [
    [
      'TOLLGATE_API_PORT',
      'abc',
      /^TOLLGATE_API_PORT must be an integer port number .* \(got "abc"\)$/,
    ],
    ['TOLLGATE_API_PORT', '70000', /^TOLLGATE_API_PORT must be an integer port number/],
    ['DATABASE_URL', 'mysql://localhost/x', /^DATABASE_URL must be a postgres:\/\/ connection URL/],
    ['TEMPORAL_ADDRESS', 'localhost', /^TEMPORAL_ADDRESS must be host:port/],
    ['NODE_ENV', 'staging', /^NODE_ENV must be development, test or production/],
    ['STRIPE_SECRET_KEY', 'pk_test_1', /^STRIPE_SECRET_KEY must be a Stripe secret key/],
    ['TOLLGATE_OPS_TOKEN', 'short', /^TOLLGATE_OPS_TOKEN must be a random string of at least 32/],
    [
      'TOLLGATE_METRICS_TOKEN',
      'short',
      /^TOLLGATE_METRICS_TOKEN must be a random string .* \(its value is secret, not shown\)$/,
    ],
    [
      'TOLLGATE_WORKER_METRICS_PORT',
      '0',
      /^TOLLGATE_WORKER_METRICS_PORT must be an integer port number/,
    ],
    [
      'TOLLGATE_INVITATION_LIMIT',
      '0',
      /^TOLLGATE_INVITATION_LIMIT must be a whole number of pending invitations/,
    ],
    ['SMTP_URL', 'http://mail.example.com', /^SMTP_URL must be an smtp:\/\/ or smtps:\/\/ URL/],
    ['MAIL_FROM', 'Tollgate', /^MAIL_FROM must be a sender address/],
  ];
  for (const [variable, value, message] of badValues) {
    it(`names ${variable} when it is ${JSON.stringify(value)}`, () => {
      assert.throws(
        () => loadConfig({ [variable]: value }),
        (error: unknown) => {
          assert.ok(error instanceof ConfigurationError);
          assert.match(error.message, message);
          assert.doesNotMatch(error.message, /\n/);
          return true;
        },
      );
    });
  }

  it('requires the service addresses in the API and worker processes', () => {
    assert.throws(() => loadRuntimeConfig({}), /^ConfigurationError: DATABASE_URL must be set/);
    assert.throws(
      () => loadRuntimeConfig({ DATABASE_URL: 'postgres://localhost/x' }),
      /TEMPORAL_ADDRESS must be set/,
    );
    assert.throws(
      () =>
        loadRuntimeConfig({ DATABASE_URL: 'postgres://localhost/x', TEMPORAL_ADDRESS: 'x:7233' }),
      /SMTP_URL must be set/,
    );
  });

  it('talks to Stripe itself in production unless told otherwise', () => {
    const config = loadRuntimeConfig({
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://localhost/x',
      TEMPORAL_ADDRESS: 'temporal:7233',
      SMTP_URL: 'smtps://mail.example.com',
      TOLLGATE_PAYLOAD_KEYS: `main:${randomBytes(32).toString('base64')}`,
    });
    assert.equal(config.stripe.apiBase, 'https://api.stripe.com');
  });

  describe('Temporal payload keys', () => {
    const key = () => randomBytes(32).toString('base64');

    it('reads id:key pairs, the current key first, and never prints a key', () => {
      const current = key();
      const { payloadKeys } = loadConfig({
        TOLLGATE_PAYLOAD_KEYS: `2026-01:${current}, 2025-06:${key()}`,
      }).temporal;
      assert.deepEqual(
        payloadKeys?.map(({ id }) => id),
        ['2026-01', '2025-06'],
      );
      assert.deepEqual(payloadKeys?.[0]?.key.export(), Buffer.from(current, 'base64'));
      const printed = `${JSON.stringify(payloadKeys)} ${inspect(payloadKeys, { depth: 5 })}`;
      assert.equal(printed.includes(current), false);
      assert.equal(printed.includes(Buffer.from(current, 'base64').toString('hex')), false);
    });

    const malformed: [string, string][] = [
      ['a short key', `main:${randomBytes(16).toString('base64')}`],
      ['a key that is not base64', `main:${key().replace(/.$/, '!')}`],
      ['a key without an id', key()],
      ['one id twice', `main:${key()},main:${key()}`],
    ];
    for (const [what, value] of malformed) {
      it(`refuses ${what} without repeating the value`, () => {
        assert.throws(
          () => loadConfig({ TOLLGATE_PAYLOAD_KEYS: value }),
          (error: unknown) => {
            assert.ok(error instanceof ConfigurationError);
            assert.match(error.message, /^TOLLGATE_PAYLOAD_KEYS must be a comma-separated list/);
            assert.equal(error.message.includes(value.slice(-20)), false);
            return true;
          },
        );
      });
    }

    it('is required in production', () => {
      assert.throws(
        () => loadConfig({ NODE_ENV: 'production' }),
        /^ConfigurationError: TOLLGATE_PAYLOAD_KEYS must be set in production/,
      );
    });
  });

  it('never repeats a malformed secret in its error', () => {
    const malformedSecrets: [string, string][] = [
      ['TOLLGATE_AUTH_SECRET', 'short-but-real-secret'],
      ['STRIPE_WEBHOOK_SECRET', 'not-a-whsec-secret-value'],
    ];
    for (const [variable, value] of malformedSecrets) {
      assert.throws(
        () => loadConfig({ [variable]: value }),
        (error: unknown) => {
          assert.ok(error instanceof ConfigurationError);
          assert.ok(error.message.startsWith(`${variable} must be`), error.message);
          assert.equal(error.message.includes(value), false, error.message);
          return true;
        },
      );
    }
  });
});

describe('TOLLGATE_TRUSTED_PROXIES', () => {
  it('is off unless set, and reads a hop count or addresses and ranges', () => {
    assert.equal(loadConfig({}).api.trustedProxies, undefined);
    assert.deepEqual(loadConfig({ TOLLGATE_TRUSTED_PROXIES: '2' }).api.trustedProxies, {
      hops: 2,
    });
    assert.deepEqual(
      loadConfig({ TOLLGATE_TRUSTED_PROXIES: '10.0.0.0/8, 192.168.1.10,fd00::/8' }).api
        .trustedProxies,
      {
        networks: [
          { address: '10.0.0.0', prefix: 8, family: 'ipv4' },
          { address: '192.168.1.10', prefix: 32, family: 'ipv4' },
          { address: 'fd00::', prefix: 8, family: 'ipv6' },
        ],
      },
    );
  });

  for (const value of [
    '0',
    'yes',
    '10.0.0.0/33',
    'fd00::/129',
    '10.0.0.0/8,',
    'proxy.local',
    '1/2/3',
  ]) {
    it(`names the variable when it is ${JSON.stringify(value)}`, () => {
      assert.throws(
        () => loadConfig({ TOLLGATE_TRUSTED_PROXIES: value }),
        (error: unknown) =>
          error instanceof ConfigurationError &&
          error.message.startsWith('TOLLGATE_TRUSTED_PROXIES must be a number of proxy hops') &&
          error.message.endsWith(`(got ${JSON.stringify(value)})`),
      );
    });
  }
});
