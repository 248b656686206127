import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { createAccessToken } from '../commerce/access-tokens/service.ts';
import { polarClient, type Seller, type TestApi } from '../commerce/testing.ts';
import { loadRuntimeConfig, projectRoot } from '../config/env.ts';
import { chromiumPath } from '../devstack/chromium.ts';
import { buildDashboardIfStale } from '../devstack/dashboard.ts';
import { allScopes } from '../domain/scopes.ts';
import { startTestApi } from './testing.ts';

/** Where browser tests write their screenshots (git-ignored, kept after the run). */
export const screenshotsDir = join(projectRoot, '.data', 'screenshots');

/** Headless Debian Chromium with a throwaway profile; `close` removes the profile too. */
export async function launchTestBrowser() {
  mkdirSync(screenshotsDir, { recursive: true });
  const profile = mkdtempSync(join(tmpdir(), 'tollgate-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return Object.assign(context, {
    async closeAndForget() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

/**
 * The API serving the built dashboard at a public URL that is its own address, so the
 * dashboard's cookie requests come from the trusted origin, as behind the real domain. The
 * run's Stripe simulator sends its webhooks here (refunds and payments settle through them).
 */
export async function startDashboardApi() {
  const port = await freePort();
  const config = loadRuntimeConfig({
    ...process.env,
    TOLLGATE_PUBLIC_URL: `http://127.0.0.1:${port}`,
  });
  return startTestApi(config, { host: '127.0.0.1', port });
}

/**
 * A new page signed in as the owner of a new organization, the session's active one (signing
 * up through the pages is dashboard.test.ts's business), and `post` to set up more as that
 * owner: `post('/v1/benefits/', {...})` answers the created JSON, asserting success.
 */
export async function ownerPage(
  browser: BrowserContext,
  apiUrl: string,
  { organizationName = 'Test Works' }: { organizationName?: string } = {},
) {
  await browser.clearCookies();
  const page = await browser.newPage();
  const tag = randomBytes(5).toString('hex');
  // biome-ignore lint/suspicious/noExplicitAny: set-up reads whatever JSON the API answered
  const post = async (path: string, data: unknown): Promise<any> => {
    const response = await page.request.post(`${apiUrl}${path}`, {
      headers: { origin: apiUrl },
      data,
    });
    assert.ok(response.ok(), `${path}: ${response.status()} ${await response.text()}`);
    return response.json();
  };
  const { user } = await post('/api/auth/sign-up/email', {
    email: `owner-${tag}@example.com`,
    password: 'correct horse battery',
    name: 'Ada Owner',
  });
  const organization = await post('/api/auth/organization/create', {
    name: organizationName,
    slug: `org-${tag}`,
  });
  return { page, post, tag, userId: user.id as string, organizationId: organization.id as string };
}

/**
 * `ownerPage`, and its organization as a seller of the commerce test API `commerce` (an access
 * token with every scope), to set up through the Polar SDK what the page then shows.
 */
export async function sellerPage(
  browser: BrowserContext,
  apiUrl: string,
  commerce: TestApi,
  options: { organizationName?: string } = {},
): Promise<{ page: Page; seller: Seller }> {
  const owner = await ownerPage(browser, apiUrl, options);
  const { token } = await createAccessToken(commerce.orm.em.fork(), {
    organizationId: owner.organizationId,
    comment: 'browser test',
    scopes: allScopes,
  });
  const polar = polarClient(commerce.url, token);
  const seller = { organizationId: owner.organizationId, ownerId: owner.userId, token, polar };
  return { page: owner.page, seller };
}

/**
 * Registers the hooks of a browser test file: before all tests, the built dashboard served by
 * the API and a headless browser; after them, both closed. Tests read `suite.api`/`suite.browser`.
 */
export function dashboardBrowserSuite() {
  const suite = {} as {
    api: Awaited<ReturnType<typeof startDashboardApi>>;
    browser: Awaited<ReturnType<typeof launchTestBrowser>>;
  };
  before(async () => {
    await buildDashboardIfStale(() => {});
    suite.api = await startDashboardApi();
    suite.browser = await launchTestBrowser();
  });
  after(async () => {
    await suite.browser?.closeAndForget();
    await suite.api?.close();
  });
  return suite;
}
