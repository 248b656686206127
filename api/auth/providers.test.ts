import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { authSettings } from '../../accounts/settings.ts';
import { loadRuntimeConfig, type RuntimeConfig } from '../../config/env.ts';
import { startApiServer } from '../server.ts';
import { startTestApi } from '../testing.ts';
import { tooManyRequestsMessage } from './rate-limit.ts';

type Api = Awaited<ReturnType<typeof startApiServer>>;

const listen = { host: '127.0.0.1', port: 0 };

/** The run's configuration changed by `change` (limits, providers). */
function startWith(change: (config: RuntimeConfig) => RuntimeConfig): Promise<Api> {
  return startApiServer(change(loadRuntimeConfig()), listen);
}

const providersOf = (api: Api) => fetch(`${api.url}/api/auth/providers`);

/** GET /api/auth/providers: what sign-in pages offer buttons for. */
describe('GET /api/auth/providers', () => {
  let configured: Api;
  before(async () => {
    configured = await startTestApi();
  });
  after(() => configured.close());

  it('names the configured providers, with no credentials and no cookie, to anyone', async () => {
    // The test stack configures every provider against its local stand-in.
    const { providers } = configured.config.auth.social;
    const response = await providersOf(configured);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('set-cookie'), null);
    const text = await response.text();
    assert.deepEqual(JSON.parse(text), { providers: ['github', 'google', 'discord'] });
    for (const settings of Object.values(providers)) {
      assert.ok(settings);
      assert.ok(!text.includes(settings.clientId), 'no client id');
      assert.ok(!text.includes(settings.clientSecret), 'no client secret');
    }
  });

  it('answers an empty list where no provider is configured, and only the configured ones', async () => {
    const only = (providers: RuntimeConfig['auth']['social']['providers']) =>
      startWith((config) => ({
        ...config,
        auth: { ...config.auth, social: { ...config.auth.social, providers } },
      }));
    const { github } = configured.config.auth.social.providers;
    const [none, githubOnly] = await Promise.all([only({}), only({ github })]);
    try {
      assert.deepEqual(await (await providersOf(none)).json(), { providers: [] });
      assert.deepEqual(await (await providersOf(githubOnly)).json(), { providers: ['github'] });
    } finally {
      await Promise.all([none.close(), githubOnly.close()]);
    }
  });

  it('is limited per IP like the other public auth routes, with 429 and Retry-After', async () => {
    const limitedConfig = (config: RuntimeConfig): RuntimeConfig => ({
      ...config,
      auth: { ...config.auth, rateLimit: { enabled: true, scale: 0.05 } },
    });
    const limited = await startWith(limitedConfig);
    try {
      const { max, windowSeconds } = authSettings(limited.config).rateLimit.rules.providerList
        .perIp;
      // Every request here comes from 127.0.0.1: start this rule's counter afresh.
      await limited.orm.em
        .getConnection()
        .execute(`delete from rate_limits where key like 'providerList:%'`, [], 'run');
      for (let request = 1; request <= max; request++) {
        assert.equal((await providersOf(limited)).status, 200, `request ${request}`);
      }
      const refused = await providersOf(limited);
      assert.equal(refused.status, 429);
      assert.deepEqual(await refused.json(), { message: tooManyRequestsMessage });
      const retryAfter = Number(refused.headers.get('retry-after'));
      assert.ok(retryAfter >= 1 && retryAfter <= windowSeconds);
    } finally {
      await limited.close();
    }
  });
});
