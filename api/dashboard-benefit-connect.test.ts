import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { type DiscordApiFake, startDiscordApiFake } from '../devstack/discord-api.ts';
import { type GitHubApiFake, startGitHubApiFake } from '../devstack/github-api.ts';
import { dashboardBrowserSuite, ownerPage, screenshotsDir } from './browser-testing.ts';

/**
 * The benefit form's "Connect a Discord server" and "Connect GitHub" in Chromium, against the
 * Discord and GitHub fakes: the seller leaves for the consent or installation page, comes back
 * to the form as it was, picks a role or a repository from the choices, and creates the benefit.
 */
describe('dashboard benefit connections (browser)', () => {
  let discord: DiscordApiFake;
  let github: GitHubApiFake;
  // Registered before the suite's own hooks: the dashboard's API starts pointed at the fakes.
  before(async () => {
    discord = await startDiscordApiFake();
    github = await startGitHubApiFake();
    Object.assign(process.env, {
      TOLLGATE_DISCORD_API_BASE_URL: discord.baseUrl,
      TOLLGATE_DISCORD_BOT_TOKEN: discord.botToken,
      TOLLGATE_DISCORD_CLIENT_ID: discord.clientId,
      TOLLGATE_DISCORD_CLIENT_SECRET: discord.clientSecret,
      TOLLGATE_GITHUB_API_BASE_URL: github.baseUrl,
      TOLLGATE_GITHUB_TOKEN: github.token,
      TOLLGATE_GITHUB_APP_ID: github.app.id,
      TOLLGATE_GITHUB_APP_PRIVATE_KEY: github.app.privateKey,
      TOLLGATE_GITHUB_APP_URL: github.app.url,
    });
  });
  const suite = dashboardBrowserSuite();
  after(async () => {
    await discord?.stop();
    await github?.stop();
  });

  const screenshot = (page: Page, name: string) =>
    page.screenshot({ path: join(screenshotsDir, `dashboard-${name}.png`), fullPage: true });

  /** The benefit as the API stores it, read with the page's session. */
  async function benefitShown(page: Page) {
    const id = new URL(page.url()).pathname.split('/').at(-1);
    const response = await page.request.get(`${suite.api.url}/v1/benefits/${id}`);
    assert.equal(response.status(), 200);
    return response.json();
  }

  it('connects a Discord server from the form and creates a role benefit with a listed role', async () => {
    discord.addGuild({
      id: '81384788765712384',
      name: 'Acme Lounge',
      roles: [
        { id: '81384788765712384', name: '@everyone' },
        { id: '555', name: 'Supporter' },
        { id: '557', name: 'Patron' },
      ],
    });
    const { page } = await ownerPage(suite.browser, suite.api.url);
    await page.goto(`${suite.api.url}/benefits/new`);
    await page.getByLabel('Type').selectOption('discord');
    await page.getByLabel('Description').fill('Patron lounge');
    // Nothing to type: no token field, only the connect button.
    assert.equal(await page.getByLabel(/token/i).count(), 0);
    await page.getByRole('button', { name: 'Connect a Discord server' }).click();

    // Discord's consent page sends the browser back; the form returns as it was left.
    await page.getByText('Server: Acme Lounge').waitFor();
    assert.equal(await page.getByLabel('Description').inputValue(), 'Patron lounge');
    assert.equal(new URL(page.url()).search, '');
    const roles = await page.getByLabel('Role').locator('option').allTextContents();
    assert.deepEqual(roles, ['Choose a role', 'Patron', 'Supporter']);
    await page.getByLabel('Role').selectOption({ label: 'Supporter' });
    await screenshot(page, 'benefit-discord-connected');
    await page.getByRole('button', { name: 'Create benefit' }).click();
    await page.getByRole('heading', { level: 1, name: 'Patron lounge' }).waitFor();
    const benefit = await benefitShown(page);
    assert.equal(benefit.type, 'discord');
    assert.equal(benefit.properties.guild_id, '81384788765712384');
    assert.equal(benefit.properties.role_id, '555');

    // Editing reads the guild's roles again from its token.
    await page.goto(`${suite.api.url}/benefits/${benefit.id}/edit`);
    await page.getByText('Server: 81384788765712384').waitFor();
    await page.getByRole('option', { name: 'Patron' }).waitFor({ state: 'attached' });
    assert.equal(await page.getByLabel('Role').inputValue(), '555');
    await page.close();
  });

  it('connects GitHub from the form and creates a repository benefit with a listed repository', async () => {
    github.setSetupUrl(`${suite.api.url}/benefits/new`);
    github.addInstallationAccount('acme', ['compiler', 'website']);
    const { page } = await ownerPage(suite.browser, suite.api.url);
    await page.goto(`${suite.api.url}/benefits/new`);
    await page.getByLabel('Type').selectOption('github_repository');
    await page.getByLabel('Description').fill('Compiler source');
    await page.getByRole('button', { name: 'Connect GitHub' }).click();

    // The installation page sends the browser back: the repositories are the choices.
    const repository = page.getByRole('combobox', { name: /^Repository/ });
    await repository.waitFor();
    assert.equal(await page.getByLabel('Description').inputValue(), 'Compiler source');
    const repositories = await repository.locator('option').allTextContents();
    assert.deepEqual(repositories, ['acme/compiler', 'acme/website']);
    await repository.selectOption('acme/website');
    await page.getByLabel('Permission').selectOption('push');
    await screenshot(page, 'benefit-github-connected');
    await page.getByRole('button', { name: 'Create benefit' }).click();
    await page.getByRole('heading', { level: 1, name: 'Compiler source' }).waitFor();
    const benefit = await benefitShown(page);
    assert.deepEqual(benefit.properties, {
      repository_owner: 'acme',
      repository_name: 'website',
      permission: 'push',
    });
    await page.close();
  });
});
