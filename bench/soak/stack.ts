/**
 * The soak's stack: what `npm start` runs (PostgreSQL, the Temporal dev server on a persisted
 * SQLite file, stripe-mock behind the Stripe simulator, mail capture, the worker pool and the API
 * pool), each part of its own on this machine so the soak may kill and restart it without
 * touching anything else: an embedded PostgreSQL cluster (never DATABASE_URL's shared server) and
 * a fresh database, and a Temporal server of its own.
 *
 * The restartable parts (PostgreSQL, Temporal, the API pool, the worker pool) each run under a
 * Supervisor of their own: killing one stops only it, and `restart` starts it again on the same
 * port with the same data, as systemd or compose would.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Config, loadConfig, projectRoot } from '../../config/env.ts';
import { migrateToLatest, openOrm } from '../../db/orm.ts';
import { startApiProcess, startWorkerProcess } from '../../devstack/app-processes.ts';
import { startEmbeddedPostgres } from '../../devstack/postgres.ts';
import { ensurePrivateDirectory } from '../../devstack/private-files.ts';
import { startSmtpCapture } from '../../devstack/smtp-capture.ts';
import { type ServiceAddresses, serviceEnvironment } from '../../devstack/stack.ts';
import { startStripeMock } from '../../devstack/stripe-mock.ts';
import { startStripeSimulator } from '../../devstack/stripe-simulator.ts';
import { findFreePort, Supervisor } from '../../devstack/supervisor.ts';
import { startTemporalDevServer } from '../../devstack/temporal.ts';
import { locateGoTool } from '../../devstack/tools.ts';
import { childProcessesOf, killProcess } from './faults.ts';

export type PartName = 'postgres' | 'temporal' | 'worker' | 'api';

/** One restartable part: its current incarnation's supervisor and main child process. */
interface Part {
  name: PartName;
  supervisor: Supervisor | undefined;
  child: ChildProcess | undefined;
  /** Set while the soak itself stops or kills it: its exit is then expected. */
  expectingExit: boolean;
  /** Exits nobody asked for (a pool whose copy died stops whole), since start. */
  unexpectedExits: number;
  start: (supervisor: Supervisor) => Promise<void>;
}

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
  const parts = new Map<PartName, Part>();
  const exited: PartName[] = [];
  const startPart = async (part: Part) => {
    const supervisor = new Supervisor((service, code) => {
      if (part.expectingExit) return;
      part.unexpectedExits += 1;
      exited.push(part.name);
      say(`${service} exited unasked (code ${code})`);
    });
    // The part's main child: what `kill` signals.
    const spawn = supervisor.spawn.bind(supervisor);
    supervisor.spawn = (options) => {
      const child = spawn(options);
      part.child = child;
      return child;
    };
    part.supervisor = supervisor;
    part.expectingExit = false;
    await part.start(supervisor);
  };

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

    let databaseUrl = '';
    const postgres: Part = {
      name: 'postgres',
      supervisor: undefined,
      child: undefined,
      expectingExit: false,
      unexpectedExits: 0,
      start: async (supervisor) => {
        databaseUrl = await startEmbeddedPostgres(supervisor, {
          directory: join(workDir, 'postgres'),
          port: postgresPort,
          database: 'tollgate_soak',
          logFile: join(logDir, 'postgres.log'),
        });
      },
    };
    const temporalAddress = `127.0.0.1:${temporalPort}`;
    const temporal: Part = {
      name: 'temporal',
      supervisor: undefined,
      child: undefined,
      expectingExit: false,
      unexpectedExits: 0,
      start: async (supervisor) => {
        await startTemporalDevServer(supervisor, temporalBinary, {
          port: temporalPort,
          uiPort: undefined,
          databaseFile: join(workDir, 'temporal.sqlite'),
          logFile: join(logDir, 'temporal.log'),
        });
      },
    };
    say('starting PostgreSQL and Temporal (their own, restartable)');
    await Promise.all([startPart(postgres), startPart(temporal)]);
    parts.set('postgres', postgres);
    parts.set('temporal', temporal);

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
      ...serviceEnvironment(addresses),
    };
    const processEnv = { ...own, ...env };
    const worker: Part = {
      name: 'worker',
      supervisor: undefined,
      child: undefined,
      expectingExit: false,
      unexpectedExits: 0,
      start: async (supervisor) => {
        await startWorkerProcess(supervisor, addresses, {
          env: processEnv,
          namespace: config.temporal.namespace,
          logFile: join(logDir, 'worker.log'),
        });
      },
    };
    const api: Part = {
      name: 'api',
      supervisor: undefined,
      child: undefined,
      expectingExit: false,
      unexpectedExits: 0,
      start: async (supervisor) => {
        await startApiProcess(supervisor, addresses, {
          env: processEnv,
          url: apiUrl,
          logFile: join(logDir, 'api.log'),
        });
      },
    };
    say(`starting ${workerProcesses} worker and ${apiProcesses} API processes`);
    await startPart(worker);
    parts.set('worker', worker);
    await startPart(api);
    parts.set('api', api);

    const partOf = (name: PartName) => {
      const part = parts.get(name);
      if (!part) throw new Error(`no part ${name}`);
      return part;
    };
    const waitForExit = async (child: ChildProcess | undefined) => {
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      await new Promise<void>((resolve) => child.once('exit', () => resolve()));
    };
    return {
      config,
      addresses,
      apiUrl,
      stripeSimulatorUrl: simulator.url,
      env,
      workDir,
      pidOf: (name) => partOf(name).child?.pid,
      async kill(name, { copy = false } = {}) {
        const part = partOf(name);
        const pid = part.child?.pid;
        if (!pid) return;
        part.expectingExit = true;
        if (copy) {
          // One process of the pool: its primary then stops the rest and exits.
          const copies = childProcessesOf(pid);
          const victim = copies[Math.floor(Math.random() * copies.length)];
          if (victim) await killProcess(victim, { group: false });
          await waitForExit(part.child);
          return;
        }
        // The whole process group: the Temporal CLI's server, a pool's copies.
        await killProcess(pid);
        await waitForExit(part.child);
      },
      async stopGracefully(name) {
        const part = partOf(name);
        part.expectingExit = true;
        await part.supervisor?.stopAll();
      },
      async restart(name) {
        const part = partOf(name);
        part.expectingExit = true;
        await part.supervisor?.stopAll();
        for (let attempt = 1; ; attempt++) {
          try {
            await startPart(part);
            return;
          } catch (error) {
            // A port still held by a dying process, say: once more after a breath.
            if (attempt >= 3) throw error;
            say(`${name} did not start (${String(error)}); trying again`);
            part.expectingExit = true;
            await part.supervisor?.stopAll();
            await sleep(2000);
          }
        }
      },
      takeUnexpectedExits: () => exited.splice(0),
      async stop() {
        // The app processes first, then the services they use.
        for (const name of ['api', 'worker', 'temporal', 'postgres'] as const) {
          const part = parts.get(name);
          if (!part) continue;
          part.expectingExit = true;
          await part.supervisor?.stopAll();
        }
        await services.stopAll();
      },
    };
  } catch (error) {
    for (const part of [...parts.values()].reverse()) {
      part.expectingExit = true;
      await part.supervisor?.stopAll();
    }
    await services.stopAll();
    throw error;
  }
}
