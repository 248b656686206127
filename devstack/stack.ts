import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config/env.ts';
import { startDiscordApiFake } from './discord-api.ts';
import { startGitHubApiFake } from './github-api.ts';
import {
  type LocalOAuthProvider,
  localOAuthEnvironment,
  startLocalOAuthProviders,
} from './oauth-provider.ts';
import { canConnect, ensureDatabase, serverUrl, startEmbeddedPostgres } from './postgres.ts';
import { ensurePrivateDirectory } from './private-files.ts';
import { startSmtpCapture } from './smtp-capture.ts';
import { startStripeMock } from './stripe-mock.ts';
import { startStripeSimulator } from './stripe-simulator.ts';
import {
  assertPortFree,
  findFreePort,
  StartupError,
  type Supervisor,
  waitUntilReady,
} from './supervisor.ts';
import {
  startDownloadedTemporalDevServer,
  startTemporalDevServer,
  type TemporalDevServerOptions,
} from './temporal.ts';
import { locateGoTool } from './tools.ts';

/** Where the services the API and worker need can be reached. */
export interface ServiceAddresses {
  databaseUrl: string;
  temporalAddress: string;
  temporalUiUrl: string | undefined;
  stripeApiBase: string;
  /** The payment simulator in front of stripe-mock (devstack/stripe-simulator.ts), when run. */
  stripeSimulator: { url: string; webhookSecret: string } | undefined;
  smtpUrl: string;
  /** Where the capture server writes mail; undefined when SMTP_URL names a real server. */
  mailCaptureDir: string | undefined;
  /** The stand-ins for GitHub, Google and Discord, when the stack runs them. */
  localOAuthProviders: LocalOAuthProvider[];
  /** The Discord and GitHub fakes' settings (`npm start` with neither configured), else none. */
  benefitIntegrationEnvironment: Record<string, string>;
}

/**
 * `start` runs services on their configured ports with data kept under the data folder;
 * `test` runs them on free ports, Temporal in memory and headless, so runs never collide.
 */
export type StackMode = 'start' | 'test';

interface StackContext {
  supervisor: Supervisor;
  config: Config;
  mode: StackMode;
  logDir: string;
  log: (line: string) => void;
}

/** Starts whatever the configuration does not already point at, and answers the addresses. */
export async function startServices(
  supervisor: Supervisor,
  config: Config,
  mode: StackMode,
  log: (line: string) => void,
): Promise<ServiceAddresses> {
  const logDir = join(config.dataDir, mode === 'start' ? 'logs' : 'test-logs');
  ensurePrivateDirectory(logDir);
  const context: StackContext = { supervisor, config, mode, logDir, log };
  // Tools first (a first run builds them), then the services side by side.
  const temporalBinary = config.temporal.address
    ? undefined
    : await locateGoTool('temporal', config.temporal.cliPath, log);
  const stripeMockBinary = config.stripe.apiBase
    ? undefined
    : await locateGoTool('stripe-mock', config.stripe.mockPath, log);
  const [databaseUrl, temporal, stripe, mail, localOAuthProviders, benefitIntegrationEnvironment] =
    await Promise.all([
      database(context),
      temporalServer(context, temporalBinary),
      stripeApi(context, stripeMockBinary),
      mailServer(context),
      oauthProviders(context),
      benefitIntegrationFakes(context),
    ]);
  return {
    databaseUrl,
    ...temporal,
    ...stripe,
    ...mail,
    localOAuthProviders,
    benefitIntegrationEnvironment,
  };
}

const portFor = async (context: StackContext, configured: number, purpose: string) => {
  if (context.mode === 'test') return findFreePort();
  await assertPortFree(configured, '127.0.0.1', purpose);
  return configured;
};

async function database(context: StackContext): Promise<string> {
  const { config, mode } = context;
  if (config.database.url) {
    const url = config.database.url;
    await waitUntilReady(`PostgreSQL at DATABASE_URL`, () => canConnect(serverUrl(url)), {
      timeoutMs: 10_000,
    });
    if (mode === 'start') await ensureDatabase(url);
    return url;
  }
  const port = await portFor(context, config.database.embeddedPort, 'embedded PostgreSQL');
  context.log(`Starting embedded PostgreSQL on port ${port}`);
  return startEmbeddedPostgres(context.supervisor, {
    directory: join(config.dataDir, mode === 'start' ? 'postgres' : 'test-postgres'),
    port,
    database: 'tollgate',
    logFile: join(context.logDir, 'postgres.log'),
  });
}

async function temporalServer(
  context: StackContext,
  binary: string | undefined,
): Promise<Pick<ServiceAddresses, 'temporalAddress' | 'temporalUiUrl'>> {
  const { config, mode } = context;
  if (config.temporal.address) {
    return { temporalAddress: config.temporal.address, temporalUiUrl: config.temporal.uiUrl };
  }
  const port = await portFor(context, config.temporal.devPort, 'Temporal frontend');
  const uiPort =
    mode === 'start'
      ? await portFor(context, config.temporal.uiPort, 'Temporal Web UI')
      : undefined;
  const options: TemporalDevServerOptions = {
    port,
    uiPort,
    databaseFile: mode === 'start' ? join(config.dataDir, 'temporal.sqlite') : undefined,
    logFile: join(context.logDir, 'temporal.log'),
  };
  context.log(`Starting Temporal dev server on port ${port}`);
  const temporalAddress = binary
    ? await startTemporalDevServer(context.supervisor, binary, options)
    : await startDownloadedTemporalDevServer(context.supervisor, options);
  const temporalUiUrl = uiPort === undefined ? undefined : `http://localhost:${uiPort}`;
  return { temporalAddress, temporalUiUrl };
}

/**
 * STRIPE_API_BASE as configured; otherwise stripe-mock behind the payment simulator, which
 * sends its events to `npm start`'s API (test APIs register themselves, see api/testing.ts).
 */
async function stripeApi(
  context: StackContext,
  binary: string | undefined,
): Promise<Pick<ServiceAddresses, 'stripeApiBase' | 'stripeSimulator'>> {
  const { config, mode, supervisor } = context;
  if (config.stripe.apiBase) {
    return { stripeApiBase: config.stripe.apiBase, stripeSimulator: undefined };
  }
  if (!binary) {
    throw new StartupError(
      'No stripe-mock found and no Go to build it: install stripe-mock and set STRIPE_MOCK_PATH, ' +
        'or set STRIPE_API_BASE',
    );
  }
  const port = await portFor(context, config.stripe.mockPort, 'stripe-mock');
  context.log(`Starting stripe-mock on port ${port}`);
  const upstream = await startStripeMock(supervisor, {
    binary,
    port,
    secretKey: config.stripe.secretKey,
    logFile: join(context.logDir, 'stripe-mock.log'),
  });
  const webhookSecret =
    config.stripe.webhookSecret ?? `whsec_${randomBytes(24).toString('base64url')}`;
  const apiHost = config.api.host === '0.0.0.0' ? '127.0.0.1' : config.api.host;
  const simulator = await startStripeSimulator({
    upstream,
    webhookSecret,
    webhookTargets:
      mode === 'start'
        ? [`http://${apiHost}:${config.api.port}/v1/integrations/stripe/webhook`]
        : [],
    log: (line) => context.log(`Stripe simulator: ${line}`),
  });
  supervisor.add({ name: 'Stripe simulator', stop: simulator.stop });
  context.log(`Simulating Stripe payments at ${simulator.url} (stripe-mock behind it)`);
  return {
    stripeApiBase: simulator.url,
    stripeSimulator: { url: simulator.url, webhookSecret },
  };
}

async function mailServer(
  context: StackContext,
): Promise<Pick<ServiceAddresses, 'smtpUrl' | 'mailCaptureDir'>> {
  const { config, mode, supervisor } = context;
  if (config.mail.smtpUrl) return { smtpUrl: config.mail.smtpUrl, mailCaptureDir: undefined };
  // `start` keeps its outbox across restarts; each test run reads only its own mail.
  const directory = mode === 'start' ? join(config.dataDir, 'mail') : testRunMailDirectory(context);
  const capture = await startSmtpCapture({ directory });
  supervisor.add({ name: 'mail capture', stop: capture.stop });
  context.log(`Capturing mail at ${capture.url}`);
  return { smtpUrl: capture.url, mailCaptureDir: directory };
}

/** An empty directory for one test run's mail, removed when the run stops. */
function testRunMailDirectory({ config, supervisor }: StackContext): string {
  const parent = join(config.dataDir, 'test-mail');
  ensurePrivateDirectory(parent);
  const directory = mkdtempSync(join(parent, 'run-'));
  // Added before the capture server, so removed after it stops.
  supervisor.add({ name: 'test mail', stop: () => rm(directory, { recursive: true }) });
  return directory;
}

/**
 * Local stand-ins for the social sign-in providers: always for tests, and for `npm start` when
 * no provider has a client id and secret of its own.
 */
async function oauthProviders(context: StackContext): Promise<LocalOAuthProvider[]> {
  const { config, mode, supervisor } = context;
  const configured = Object.values(config.auth.social.providers).some(Boolean);
  if (mode === 'start' && configured) return [];
  const local = await startLocalOAuthProviders();
  supervisor.add({ name: 'local OAuth providers', stop: local.stop });
  context.log(
    `Local OAuth providers: ${local.providers.map((p) => `${p.id} ${p.baseUrl}`).join(', ')}`,
  );
  return local.providers;
}

/**
 * Discord and GitHub stand-ins for `npm start` when neither is configured: grants, "Connect a
 * Discord server" (a demo guild with roles) and "Connect GitHub" (a demo account's repositories)
 * work locally. Tests start their own fakes.
 */
async function benefitIntegrationFakes(context: StackContext): Promise<Record<string, string>> {
  const { config, mode, supervisor } = context;
  const { discord, github } = config.benefitIntegrations;
  if (mode !== 'start' || discord.botToken || discord.client || github.token || github.app) {
    return {};
  }
  const [discordFake, githubFake] = await Promise.all([
    startDiscordApiFake(),
    startGitHubApiFake(),
  ]);
  supervisor.add({
    name: 'Discord and GitHub fakes',
    stop: async () => {
      await Promise.all([discordFake.stop(), githubFake.stop()]);
    },
  });
  discordFake.addGuild({
    id: '81384788765712384',
    name: 'Tollgate Demo',
    roles: [
      { id: '81384788765712384', name: '@everyone' },
      { id: '81384788765712390', name: 'Supporter' },
      { id: '81384788765712391', name: 'Patron' },
    ],
  });
  githubFake.addInstallationAccount('tollgate-demo', ['app', 'sdk', 'docs']);
  githubFake.setSetupUrl(new URL('benefits/new', `${config.api.publicUrl}/`).href);
  context.log(`Discord and GitHub fakes: ${discordFake.baseUrl}, ${githubFake.baseUrl}`);
  return {
    TOLLGATE_DISCORD_API_BASE_URL: discordFake.baseUrl,
    TOLLGATE_DISCORD_BOT_TOKEN: discordFake.botToken,
    TOLLGATE_DISCORD_CLIENT_ID: discordFake.clientId,
    TOLLGATE_DISCORD_CLIENT_SECRET: discordFake.clientSecret,
    TOLLGATE_GITHUB_API_BASE_URL: githubFake.baseUrl,
    TOLLGATE_GITHUB_TOKEN: githubFake.token,
    TOLLGATE_GITHUB_APP_ID: githubFake.app.id,
    TOLLGATE_GITHUB_APP_PRIVATE_KEY: githubFake.app.privateKey.replaceAll('\n', '\\n'),
    TOLLGATE_GITHUB_APP_URL: githubFake.app.url,
  };
}

/** The environment an API or worker process needs to reach the services. */
export function serviceEnvironment(addresses: ServiceAddresses): Record<string, string> {
  return {
    DATABASE_URL: addresses.databaseUrl,
    TEMPORAL_ADDRESS: addresses.temporalAddress,
    STRIPE_API_BASE: addresses.stripeApiBase,
    SMTP_URL: addresses.smtpUrl,
    ...(addresses.stripeSimulator
      ? {
          STRIPE_SIMULATOR_URL: addresses.stripeSimulator.url,
          STRIPE_WEBHOOK_SECRET: addresses.stripeSimulator.webhookSecret,
        }
      : {}),
    ...(addresses.mailCaptureDir ? { MAIL_CAPTURE_DIR: addresses.mailCaptureDir } : {}),
    ...(addresses.temporalUiUrl ? { TEMPORAL_UI_URL: addresses.temporalUiUrl } : {}),
    ...localOAuthEnvironment(addresses.localOAuthProviders),
    ...addresses.benefitIntegrationEnvironment,
  };
}
