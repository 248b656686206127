import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadRuntimeConfig, type RuntimeConfig } from '../../config/env.ts';
import { startApiServer } from '../server.ts';
import { startTestApi } from '../testing.ts';

type Api = Awaited<ReturnType<typeof startApiServer>>;

const listen = { host: '127.0.0.1', port: 0 };

/** The run's configuration changed by `change` (its providers). */
function startWith(change: (config: RuntimeConfig) => RuntimeConfig): Promise<Api> {
  return startApiServer(change(loadRuntimeConfig()), listen);
}

const providersOf = (api: Api) => fetch(`${api.url}/api/auth/providers`);

/** GET /api/auth/providers: what sign-in pages offer buttons for (its limit: rate-limit.test.ts). */
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
});
