/**
 * The soak's stack: what `npm start` runs (PostgreSQL, the Temporal dev server on a persisted
 * SQLite file, stripe-mock behind the Stripe simulator, mail capture, the worker pool and the API
 * pool), each part of its own on this machine so the soak may kill and restart it without
 * touching anything else: an embedded PostgreSQL cluster (never DATABASE_URL's shared server) and
 * a fresh database, and a Temporal server of its own.
 *
 * The restartable parts (PostgreSQL, Temporal, the API pool, the worker pool) are
 * bench/soak/faults.ts's RestartableService, each under a Supervisor of its own: killing one
 * stops only it, and `restart` starts it again on the same port with the same data, as systemd
 * or compose would.
 */
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type Config, loadConfig, projectRoot } from '../../config/env.ts';
import { migrateToLatest, openOrm } from '../../db/orm.ts';
import { startApiProcess, startWorkerProcess } from '../../devstack/app-processes.ts';
import { ensurePrivateDirectory } from '../../devstack/private-files.ts';
import { startSmtpCapture } from '../../devstack/smtp-capture.ts';
import { type ServiceAddresses, serviceEnvironment } from '../../devstack/stack.ts';
import { startStripeMock } from '../../devstack/stripe-mock.ts';
import { startStripeSimulator } from '../../devstack/stripe-simulator.ts';
import { findFreePort, Supervisor } from '../../devstack/supervisor.ts';
import { locateGoTool } from '../../devstack/tools.ts';
import {
  type RestartableService,
  startRestartable,
  startRestartablePostgres,
  startRestartableTemporal,
} from './faults.ts';

export type PartName = 'postgres' | 'temporal' | 'worker' | 'api';

export interface SoakStack {
  config: Config;
  addresses: ServiceAddresses;
  apiUrl: string;
  stripeSimulatorUrl: string;
  /** The environment of the app processes (their secrets and the services' addresses). */
  env: Record<string, string>;
  workDir: string;
  /** The main pid of a part now (the pool's primary for the API and the worker). */
  pidOf(part: PartName): number | undefined;
  /** SIGKILLs the part's main process (or, with `copy`, one process of its pool). */
  kill(part: PartName, options?: { copy?: boolean }): Promise<void>;
  /** PostgreSQL's fast shutdown (SIGINT): clients are disconnected, work in flight rolled back. */
  stopGracefully(part: PartName): Promise<void>;
  /** Starts the part again (after a kill, a stop or its own exit), same port, same data. */
  restart(part: PartName): Promise<void>;
  /** Parts that exited without being asked to since the last call (a pool whose copy died). */
  takeUnexpectedExits(): PartName[];
  stop(): Promise<void>;
}

export async function startSoakStack(
  say: (line: string) => void,
  { apiProcesses = 2, workerProcesses = 2 } = {},
): Promise<SoakStack> {
  const payloadKeys = `soak:${randomBytes(32).toString('base64')}`;
  // Nothing shared: every service is the soak's own, whatever this shell points at.
  const own: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'test' };
  for (const name of [
    'DATABASE_URL',
    'TEMPORAL_ADDRESS',
    'TEMPORAL_UI_URL',
    'STRIPE_API_BASE',
    'STRIPE_SIMULATOR_URL',
    'STRIPE_WEBHOOK_SECRET',
    'SMTP_URL',
    'MAIL_CAPTURE_DIR',
  ]) {
    delete own[name];
  }
  const config = loadConfig({ ...own, TOLLGATE_PAYLOAD_KEYS: payloadKeys });
  const workDir = join(projectRoot, '.data', 'soak');
  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(workDir, { recursive: true });
  const logDir = join(workDir, 'logs');
  ensurePrivateDirectory(logDir);

  const services = new Supervisor((service, code) => say(`${service} exited (code ${code})`));
  const parts = new Map<PartName, RestartableService>();
  const exited: PartName[] = [];
  /** A part's exits nobody asked for are reported and kept for `takeUnexpectedExits`. */
  const watched = (name: PartName) => ({
    onUnexpectedExit: (code: number | null) => {
      exited.push(name);
      say(`${name} exited unasked (code ${code})`);
    },
  });

  try {
    const [temporalBinary, stripeMockBinary] = await Promise.all([
      locateGoTool('temporal', config.temporal.cliPath, say),
      locateGoTool('stripe-mock', config.stripe.mockPath, say),
    ]);
    if (!temporalBinary || !stripeMockBinary) {
      throw new Error('the soak needs the Temporal CLI and stripe-mock binaries');
    }
    const [postgresPort, temporalPort, stripeMockPort, apiPort] = await Promise.all([
      findFreePort(),
      findFreePort(),
      findFreePort(),
      findFreePort(),
    ]);

    say('starting PostgreSQL and Temporal (their own, restartable)');
    const [postgres, temporal] = await Promise.all([
      startRestartablePostgres(
        {
          directory: join(workDir, 'postgres'),
          port: postgresPort,
          database: 'tollgate_soak',
          logFile: join(logDir, 'postgres.log'),
        },
        watched('postgres'),
      ),
      startRestartableTemporal(
        temporalBinary,
        {
          port: temporalPort,
          uiPort: undefined,
          databaseFile: join(workDir, 'temporal.sqlite'),
          logFile: join(logDir, 'temporal.log'),
        },
        watched('temporal'),
      ),
    ]);
    parts.set('postgres', postgres);
    parts.set('temporal', temporal);
    const databaseUrl = postgres.address ?? '';
    const temporalAddress = temporal.address ?? '';

    const upstream = await startStripeMock(services, {
      binary: stripeMockBinary,
      port: stripeMockPort,
      secretKey: config.stripe.secretKey,
      logFile: join(logDir, 'stripe-mock.log'),
    });
    const webhookSecret = `whsec_${randomBytes(24).toString('base64url')}`;
    const apiUrl = `http://127.0.0.1:${apiPort}`;
    const simulator = await startStripeSimulator({
      upstream,
      webhookSecret,
      webhookTargets: [`${apiUrl}/v1/integrations/stripe/webhook`],
      // Its delivery retries while the API restarts are many: kept in a log of their own.
      log: (line) => appendFileSync(join(logDir, 'stripe-simulator.log'), `${line}\n`),
    });
    services.add({ name: 'Stripe simulator', stop: simulator.stop });
    const mailDirectory = join(workDir, 'mail');
    const mail = await startSmtpCapture({ directory: mailDirectory });
    services.add({ name: 'mail capture', stop: mail.stop });

    const orm = await openOrm(databaseUrl);
    await migrateToLatest(orm);
    await orm.close();

    const addresses: ServiceAddresses = {
      databaseUrl,
      temporalAddress,
      temporalUiUrl: undefined,
      stripeApiBase: simulator.url,
      stripeSimulator: { url: simulator.url, webhookSecret },
      smtpUrl: mail.url,
      mailCaptureDir: mailDirectory,
      localOAuthProviders: [],
      benefitIntegrationEnvironment: {},
    };
    const env: Record<string, string> = {
      NODE_ENV: 'test',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
      TOLLGATE_OPS_TOKEN: randomBytes(32).toString('hex'),
      TOLLGATE_AUTH_SECRET: randomBytes(32).toString('hex'),
      TOLLGATE_PAYLOAD_KEYS: payloadKeys,
      TOLLGATE_AUTH_RATE_LIMIT: 'off',
      TOLLGATE_API_HOST: '127.0.0.1',
      TOLLGATE_API_PORT: String(apiPort),
      TOLLGATE_PUBLIC_URL: apiUrl,
      TOLLGATE_API_PROCESSES: String(apiProcesses),
      TOLLGATE_WORKER_PROCESSES: String(workerProcesses),
      // Webhook retries within the soak's minutes (not days): a receiver down for a few minutes
      // is retried every 10 s, and disabled only after about four minutes of failures.
      TOLLGATE_WEBHOOK_RETRY_DELAYS: ['1', '2', '5', ...Array(22).fill('10')].join(','),
      // Checkouts left open expire within the soak's minutes (they hold discount redemptions).
      TOLLGATE_CHECKOUT_TTL_SECONDS: '90',
      // A 3-D Secure challenge left undone fails its checkout within the soak's minutes too.
      TOLLGATE_CHECKOUT_AUTHENTICATION_TIMEOUT_SECONDS: '60',
      // Invitations left alone expire (after a reminder) while the soak waits for them.
      TOLLGATE_INVITATION_LIFETIME_SECONDS: '75',
      TOLLGATE_INVITATION_REMINDER_SECONDS: '30',
      ...serviceEnvironment(addresses),
    };
    const processEnv = { ...own, ...env };
    say(`starting ${workerProcesses} worker and ${apiProcesses} API processes`);
    const worker = await startRestartable(
      'worker',
      async (supervisor) => {
        await startWorkerProcess(supervisor, addresses, {
          env: processEnv,
          namespace: config.temporal.namespace,
          logFile: join(logDir, 'worker.log'),
        });
        return undefined;
      },
      watched('worker'),
    );
    parts.set('worker', worker);
    const api = await startRestartable(
      'api',
      async (supervisor) => {
        await startApiProcess(supervisor, addresses, {
          env: processEnv,
          url: apiUrl,
          logFile: join(logDir, 'api.log'),
        });
        return apiUrl;
      },
      watched('api'),
    );
    parts.set('api', api);

    const partOf = (name: PartName) => {
      const part = parts.get(name);
      if (!part) throw new Error(`no part ${name}`);
      return part;
    };
    return {
      config,
      addresses,
      apiUrl,
      stripeSimulatorUrl: simulator.url,
      env,
      workDir,
      pidOf: (name) => partOf(name).pid(),
      kill: (name, options) => partOf(name).kill(options),
      stopGracefully: (name) => partOf(name).stop(),
      restart: (name) => partOf(name).restart(),
      takeUnexpectedExits: () => exited.splice(0),
      async stop() {
        // The app processes first, then the services they use.
        for (const name of ['api', 'worker', 'temporal', 'postgres'] as const) {
          await parts.get(name)?.stop();
        }
        await services.stopAll();
      },
    };
  } catch (error) {
    for (const part of [...parts.values()].reverse()) await part.stop();
    await services.stopAll();
    throw error;
  }
}
