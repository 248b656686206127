import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConfigurationError, loadConfig, loadRuntimeConfig } from '../../config/env.ts';
import { type DiscordApiFake, startDiscordApiFake } from '../../devstack/discord-api.ts';
import { type GitHubApiFake, startGitHubApiFake } from '../../devstack/github-api.ts';
import { type SignedInPerson, signedInMember, signedInOwner } from '../access-tokens/testing.ts';
import { callV1, createSeller, startCommerceApi, type TestApi } from '../testing.ts';

/** The environment pointing the API at the Discord and GitHub fakes, as `npm start` does. */
const fakeEnvironment = (discord: DiscordApiFake, github: GitHubApiFake) => ({
  TOLLGATE_DISCORD_API_BASE_URL: discord.baseUrl,
  TOLLGATE_DISCORD_BOT_TOKEN: discord.botToken,
  TOLLGATE_DISCORD_CLIENT_ID: discord.clientId,
  TOLLGATE_DISCORD_CLIENT_SECRET: discord.clientSecret,
  TOLLGATE_GITHUB_API_BASE_URL: github.baseUrl,
  TOLLGATE_GITHUB_TOKEN: github.token,
  TOLLGATE_GITHUB_APP_ID: github.app.id,
  // One line, as in an env file.
  TOLLGATE_GITHUB_APP_PRIVATE_KEY: github.app.privateKey.replaceAll('\n', '\\n'),
  TOLLGATE_GITHUB_APP_URL: github.app.url,
});

/** Follows the consent or installation page's redirect: the query it sends the browser back with. */
async function comeBack(url: string): Promise<{ at: string; query: Record<string, string> }> {
  const response = await fetch(url, { redirect: 'manual' });
  assert.equal(response.status, 302, await response.text());
  const back = new URL(response.headers.get('location') ?? '');
  return { at: `${back.origin}${back.pathname}`, query: Object.fromEntries(back.searchParams) };
}

describe('benefit connections: "Connect a Discord server" and "Connect GitHub"', () => {
  let api: TestApi;
  let discord: DiscordApiFake;
  let github: GitHubApiFake;
  let owner: SignedInPerson & { organizationId: string };
  let newBenefitPage: string;
  const guild = {
    id: '81384788765712384',
    name: 'Acme Lounge',
    roles: [
      { id: '81384788765712384', name: '@everyone' },
      { id: '555', name: 'Supporter' },
      { id: '556', name: 'Tollgate', managed: true },
      { id: '557', name: 'Patron' },
    ],
  };

  before(async () => {
    discord = await startDiscordApiFake();
    github = await startGitHubApiFake();
    discord.addGuild(guild);
    github.addInstallationAccount(
      'acme',
      Array.from({ length: 105 }, (_, index) => `repository-${index + 1}`),
    );
    api = await startCommerceApi(
      loadRuntimeConfig({ ...process.env, ...fakeEnvironment(discord, github) }),
    );
    newBenefitPage = new URL('benefits/new', `${api.config.api.publicUrl}/`).href;
    github.setSetupUrl(newBenefitPage);
    owner = await signedInOwner(api);
  });
  after(async () => {
    await api?.close();
    await discord?.stop();
    await github?.stop();
  });

  /** Starts and consents: the query Discord sends the seller's browser back with. */
  async function installBot(person: SignedInPerson) {
    const started = await person.call('POST', '/v1/benefit-connections/discord', {});
    assert.equal(started.status, 200, JSON.stringify(started.body));
    return (await comeBack(started.body.url)).query;
  }

  it('installs the bot through Discord’s OAuth2, answers a guild token and the roles; a benefit takes them', async () => {
    const started = await owner.call('POST', '/v1/benefit-connections/discord', {});
    assert.equal(started.status, 200);
    const authorize = new URL(started.body.url);
    assert.equal(
      `${authorize.origin}${authorize.pathname}`,
      `${new URL(discord.baseUrl).origin}/oauth2/authorize`,
    );
    assert.equal(authorize.searchParams.get('client_id'), discord.clientId);
    assert.equal(authorize.searchParams.get('scope'), 'bot');
    assert.equal(authorize.searchParams.get('response_type'), 'code');
    assert.equal(authorize.searchParams.get('redirect_uri'), newBenefitPage);
    // Create Instant Invite, Kick Members, Manage Roles.
    assert.equal(authorize.searchParams.get('permissions'), String(1 + 2 + 268_435_456));
    const back = await comeBack(started.body.url);
    assert.equal(back.at, newBenefitPage);
    assert.equal(back.query.guild_id, guild.id);
    assert.equal(back.query.state, authorize.searchParams.get('state'));

    const connected = await owner.call(
      'POST',
      '/v1/benefit-connections/discord/callback',
      back.query,
    );
    assert.equal(connected.status, 200, JSON.stringify(connected.body));
    assert.equal(connected.body.guild_id, guild.id);
    assert.equal(connected.body.guild_name, 'Acme Lounge');
    // Neither @everyone nor the bot's own managed role; highest first.
    assert.deepEqual(connected.body.roles, [
      { id: '557', name: 'Patron' },
      { id: '555', name: 'Supporter' },
    ]);

    const benefit = await owner.call('POST', '/v1/benefits/', {
      type: 'discord',
      description: 'Patron role',
      properties: { guild_token: connected.body.guild_token, role_id: '557', kick_member: false },
    });
    assert.equal(benefit.status, 201, JSON.stringify(benefit.body));
    assert.equal(benefit.body.properties.guild_id, guild.id);

    // The edit form reads the roles again with the token.
    const roles = await owner.call('POST', '/v1/benefit-connections/discord/roles', {
      guild_token: connected.body.guild_token,
    });
    assert.equal(roles.status, 200);
    assert.deepEqual(
      roles.body.roles.map((role: { id: string }) => role.id),
      ['557', '555'],
    );

    // The code was spent: coming back twice is Discord's refusal.
    const again = await owner.call('POST', '/v1/benefit-connections/discord/callback', back.query);
    assert.equal(again.status, 422);
    assert.equal(again.body.error, 'IntegrationRefused');
  });

  it('refuses a guild token in another organization, and a forged one', async () => {
    const query = await installBot(owner);
    const connected = await owner.call('POST', '/v1/benefit-connections/discord/callback', query);
    const stranger = await signedInOwner(api);
    const properties = {
      guild_token: connected.body.guild_token,
      role_id: '555',
      kick_member: false,
    };
    const created = await stranger.call('POST', '/v1/benefits/', {
      type: 'discord',
      description: 'Stolen role',
      properties,
    });
    assert.equal(created.status, 422);
    assert.deepEqual(created.body.detail[0].loc, ['body', 'properties', 'guild_token']);
    const roles = await stranger.call('POST', '/v1/benefit-connections/discord/roles', {
      guild_token: connected.body.guild_token,
    });
    assert.equal(roles.status, 422);
    const forged = await owner.call('POST', '/v1/benefit-connections/discord/roles', {
      guild_token: `${guild.id}.forged`,
    });
    assert.equal(forged.status, 422);
  });

  it('completes only in the session and organization that started, with a fresh state', async () => {
    const query = await installBot(owner);
    // Another admin of the same organization, another owner elsewhere: the state is not theirs.
    const admin = await signedInMember(api, owner.organizationId, 'admin');
    const stranger = await signedInOwner(api);
    for (const person of [admin, stranger]) {
      const refused = await person.call('POST', '/v1/benefit-connections/discord/callback', query);
      assert.equal(refused.status, 422, JSON.stringify(refused.body));
      assert.deepEqual(refused.body.detail[0].loc, ['body', 'state']);
    }
    // A GitHub state does not complete a Discord install.
    const githubStart = await owner.call('POST', '/v1/benefit-connections/github', {});
    const githubState = new URL(githubStart.body.url).searchParams.get('state') ?? '';
    const crossed = await owner.call('POST', '/v1/benefit-connections/discord/callback', {
      ...query,
      state: githubState,
    });
    assert.equal(crossed.status, 422);
    // The refusals spent nothing: the seller who started still completes.
    const completed = await owner.call('POST', '/v1/benefit-connections/discord/callback', query);
    assert.equal(completed.status, 200);
  });

  it('is for signed-in members who may write benefits: not tokens, not read-only members', async () => {
    const member = await signedInMember(api, owner.organizationId, 'member');
    const readOnly = await member.call('POST', '/v1/benefit-connections/discord', {});
    assert.equal(readOnly.status, 403);
    const seller = await createSeller(api);
    for (const path of ['/v1/benefit-connections/discord', '/v1/benefit-connections/github']) {
      const byToken = await callV1(api, seller.token, 'POST', path, {});
      assert.equal(byToken.status, 403);
      assert.equal(byToken.body.error, 'NotPermitted');
      assert.equal((await callV1(api, null, 'POST', path, {})).status, 401);
    }
  });

  it('installs the GitHub App and lists every repository the installation reaches', async () => {
    const started = await owner.call('POST', '/v1/benefit-connections/github', {});
    assert.equal(started.status, 200);
    assert.ok(started.body.url.startsWith(`${github.app.url}/installations/new?state=`));
    const back = await comeBack(started.body.url);
    assert.equal(back.at, newBenefitPage);
    assert.equal(back.query.setup_action, 'install');

    const connected = await owner.call(
      'POST',
      '/v1/benefit-connections/github/callback',
      back.query,
    );
    assert.equal(connected.status, 200, JSON.stringify(connected.body));
    assert.equal(connected.body.installation_id, back.query.installation_id);
    // Two pages of 100.
    assert.equal(connected.body.repositories.length, 105);
    assert.deepEqual(connected.body.repositories[104], {
      repository_owner: 'acme',
      repository_name: 'repository-105',
    });
    const benefit = await owner.call('POST', '/v1/benefits/', {
      type: 'github_repository',
      description: 'Source access',
      properties: { ...connected.body.repositories[0], permission: 'pull' },
    });
    assert.equal(benefit.status, 201, JSON.stringify(benefit.body));

    // Another session cannot complete it; an installation GitHub does not know is refused.
    const stranger = await signedInOwner(api);
    const refused = await stranger.call(
      'POST',
      '/v1/benefit-connections/github/callback',
      back.query,
    );
    assert.equal(refused.status, 422);
    const fresh = await comeBack(
      (await owner.call('POST', '/v1/benefit-connections/github', {})).body.url,
    );
    const unknown = await owner.call('POST', '/v1/benefit-connections/github/callback', {
      ...fresh.query,
      installation_id: '999',
    });
    assert.equal(unknown.status, 422);
    assert.equal(unknown.body.error, 'IntegrationRefused');
  });

  it('is off, saying so, when the server has no Discord client or GitHub App', async () => {
    const plain = await startCommerceApi();
    try {
      const person = await signedInOwner(plain);
      for (const path of ['/v1/benefit-connections/discord', '/v1/benefit-connections/github']) {
        const answer = await person.call('POST', path, {});
        assert.equal(answer.status, 403);
        assert.equal(answer.body.error, 'IntegrationNotConfigured');
      }
    } finally {
      await plain.close();
    }
  });

  it('refuses half a configuration, naming what is missing', () => {
    const base = { ...process.env, ...fakeEnvironment(discord, github) };
    const cases: [Record<string, string | undefined>, RegExp][] = [
      [{ TOLLGATE_DISCORD_CLIENT_SECRET: undefined }, /TOLLGATE_DISCORD_CLIENT_SECRET must be set/],
      [{ TOLLGATE_DISCORD_BOT_TOKEN: undefined }, /TOLLGATE_DISCORD_BOT_TOKEN must be set/],
      [{ TOLLGATE_GITHUB_APP_URL: undefined }, /TOLLGATE_GITHUB_APP_URL must be set/],
      [
        { TOLLGATE_GITHUB_APP_PRIVATE_KEY: 'not a key' },
        /TOLLGATE_GITHUB_APP_PRIVATE_KEY must be a PEM/,
      ],
    ];
    for (const [change, message] of cases) {
      assert.throws(
        () => loadConfig({ ...base, ...change }),
        (error) => error instanceof ConfigurationError && message.test(error.message),
      );
    }
  });
});
