import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { hashPassword as scryptHash, verifyPassword as scryptVerify } from 'better-auth/crypto';
import { hashPassword, verifyPassword } from '../accounts/passwords.ts';
import { projectRoot } from '../config/env.ts';
import { openOrm } from '../db/orm.ts';
import { dropDatabase, ensureDatabase } from '../devstack/postgres.ts';
import { findFreePort, waitUntilReady } from '../devstack/supervisor.ts';
import type { TestStack } from '../devstack/test-stack.ts';
import { benchRun } from './lib/bench-run.ts';
import {
  type CpuUse,
  cpuBound,
  cpuTable,
  postgresBackends,
  serverMsPerOperation,
  startCpuUse,
} from './lib/cpu-use.ts';
import { writeBenchResults } from './lib/results.ts';
import { type LoadOptions, type LoadSummary, runLoad } from './lib/run-load.ts';

const options = process.argv.slice(2).filter((argument) => !argument.startsWith('--'));
const durationSeconds = Number(options[0] ?? 10);
const warmupSeconds = Number(options[1] ?? 2);
const cpuProfile = process.argv.includes('--cpu-prof');
/** `--only=get-session`: the scenarios whose name holds that text (a profile of one route). */
const only = process.argv.find((argument) => argument.startsWith('--only='))?.slice(7);
if (!(durationSeconds > 0) || !(warmupSeconds >= 0)) {
  throw new Error(
    'usage: node bench/auth.ts [seconds=10] [warmupSeconds=2] [--cpu-prof] [--only=<scenario>]',
  );
}

// Start-up, hashing, every load run with its warm-up and margins, and clean-up.
const run = benchRun('auth', 300 + 6 * (durationSeconds + warmupSeconds + 45));
const { say, loadAbort, failIfCrashed } = run;
const workDir = join(projectRoot, '.data', 'bench-auth');
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

// --- The password hash alone ---

interface HashTiming {
  concurrency: number;
  /** Median time for `concurrency` operations started together to all finish. */
  batchMs: number;
  perSecond: number;
}

async function timeConcurrent(
  operation: () => Promise<unknown>,
  concurrency: number,
  rounds: number,
): Promise<HashTiming> {
  const batches: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const started = performance.now();
    await Promise.all(Array.from({ length: concurrency }, operation));
    batches.push(performance.now() - started);
  }
  const totalSeconds = batches.reduce((sum, ms) => sum + ms, 0) / 1000;
  return {
    concurrency,
    batchMs: median(batches),
    perSecond: (concurrency * rounds) / totalSeconds,
  };
}

async function timePasswordHashes() {
  const password = 'correct horse battery staple';
  const argon2Stored = await hashPassword(password);
  const scryptStored = await scryptHash(password);
  const argon2: { hash: HashTiming; verify: HashTiming }[] = [];
  for (let concurrency = 1; concurrency <= 8; concurrency++) {
    const rounds = concurrency === 1 ? 10 : 5;
    argon2.push({
      hash: await timeConcurrent(() => hashPassword(password), concurrency, rounds),
      verify: await timeConcurrent(
        () => verifyPassword(password, argon2Stored),
        concurrency,
        rounds,
      ),
    });
  }
  // Pure JS on the event loop: concurrency cannot help it, so fewer levels and rounds.
  const scrypt: { hash: HashTiming; verify: HashTiming }[] = [];
  for (const concurrency of [1, 2, 4, 8]) {
    const rounds = concurrency === 1 ? 5 : 2;
    scrypt.push({
      hash: await timeConcurrent(() => scryptHash(password), concurrency, rounds),
      verify: await timeConcurrent(
        () => scryptVerify({ hash: scryptStored, password }),
        concurrency,
        rounds,
      ),
    });
  }
  return { argon2, scrypt };
}

// --- The two servers ---

interface Server {
  name: 'Tollgate' | 'Better Auth';
  url: string;
  /** The seeded user's session cookies. */
  cookie: string;
  /** Its database's name, whose PostgreSQL backends count in its CPU. */
  database: string;
}

const account = {
  name: 'Bench User',
  email: 'bench@example.com',
  password: 'correct horse battery staple',
};

function startTollgate(stack: TestStack): Promise<string> {
  return run.startApi(stack, join(workDir, 'tollgate-api.log'), {
    TOLLGATE_SESSION_COOKIE_CACHE: 'off',
    ...(cpuProfile ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${workDir}` } : {}),
  });
}

async function startBetterAuth(stack: TestStack): Promise<{ url: string; database: string }> {
  const databaseUrl = new URL(stack.addresses.databaseUrl);
  databaseUrl.pathname = `/better_auth_bench_${Date.now()}_${process.pid}`;
  await ensureDatabase(databaseUrl.toString());
  // Registered before the server, so dropped after it stops.
  run.add({
    name: 'Better Auth database',
    stop: () => dropDatabase(databaseUrl.toString()),
  });
  const port = await findFreePort();
  const url = `http://127.0.0.1:${port}`;
  run.spawn({
    name: 'Better Auth',
    command: process.execPath,
    args: [join(import.meta.dirname, 'auth', 'better-auth-server.ts')],
    env: {
      ...process.env,
      NODE_ENV: 'production',
      BENCH_DATABASE_URL: databaseUrl.toString(),
      BENCH_PORT: String(port),
      BENCH_SECRET: randomBytes(32).toString('hex'),
    },
    logFile: join(workDir, 'better-auth.log'),
  });
  await waitUntilReady(
    'Better Auth',
    async () => (await fetch(`${url}/api/auth/ok`)).status === 200,
    { timeoutMs: 60_000, intervalMs: 200 },
  );
  return { url, database: databaseUrl.pathname.slice(1) };
}

const postJson = (url: string, body: unknown) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** Signs the benchmark user up over HTTP; answers its session cookies, checked by get-session. */
async function seedUser(
  name: Server['name'],
  { url, database }: Omit<Server, 'name' | 'cookie'>,
): Promise<Server> {
  const signUp = await postJson(`${url}/api/auth/sign-up/email`, account);
  if (signUp.status !== 200) {
    throw new Error(`${name} sign-up answered ${signUp.status}: ${await signUp.text()}`);
  }
  const cookie = signUp.headers
    .getSetCookie()
    .map((header) => header.split(';')[0] ?? '')
    .filter((pair) => !pair.endsWith('='))
    .join('; ');
  const session = await fetch(`${url}/api/auth/get-session`, { headers: { cookie } });
  const sessionBody = (await session.json()) as { user?: { email?: string } } | null;
  if (session.status !== 200 || sessionBody?.user?.email !== account.email) {
    throw new Error(`${name} get-session with the sign-up cookie answered ${session.status}`);
  }
  const { email, password } = account;
  const signIn = await postJson(`${url}/api/auth/sign-in/email`, { email, password });
  if (signIn.status !== 200) throw new Error(`${name} sign-in answered ${signIn.status}`);
  return { name, url, cookie, database };
}

// --- Load ---

interface Scenario {
  name: string;
  connections: number;
  /** Tollgate's requests per second must reach this multiple of Better Auth's. */
  targetRatio?: number;
  /**
   * Measured as the time this many answers take instead of the answers within the run's seconds,
   * after a warm-up of one answer per connection. For Better Auth's sign-in: its pure-JS scrypt
   * (noble's scryptAsync, yielding every 10 ms) interleaves the connections' verifies on its one
   * thread, so they are answered together every connections × 160 ms of CPU (seconds on a busy
   * machine); a 5-second run then counted no answer at all, and a timed warm-up left its unanswered
   * sign-ins to slow the measured run. Each answer still has the generator's 30 s timeout.
   */
  answers?: number;
  request(server: Server): Omit<LoadOptions, 'connections' | 'durationSeconds'>;
}

const scenarios: Scenario[] = [
  {
    name: 'GET /get-session (valid cookie)',
    connections: 50,
    targetRatio: 3,
    request: ({ url, cookie }) => ({ url: `${url}/api/auth/get-session`, headers: { cookie } }),
  },
  {
    // No cookie, so no Origin header is needed by either server.
    name: 'POST /sign-in/email (valid password)',
    connections: 10,
    targetRatio: 5,
    answers: 40,
    request: ({ url }) => ({
      url: `${url}/api/auth/sign-in/email`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: account.email, password: account.password }),
    }),
  },
  {
    name: 'GET /ok',
    connections: 50,
    request: ({ url }) => ({ url: `${url}/api/auth/ok` }),
  },
];

/** A warm-up, then the measured run: its summary and CPU, the server's backends among it. */
async function measure(
  scenario: Scenario,
  server: Server,
  postgresPids: () => Promise<number[]>,
): Promise<{ summary: LoadSummary; cpu: CpuUse }> {
  const label = `${scenario.name} on ${server.name}`;
  const load = { ...scenario.request(server), connections: scenario.connections };
  // A run to a number of answers is bounded by its generator's time limit, not by seconds.
  const [warmUp, measured] =
    scenario.answers === undefined
      ? [{ durationSeconds: warmupSeconds }, { durationSeconds }]
      : [
          { answers: scenario.connections, durationSeconds: 60 },
          { answers: scenario.answers, durationSeconds: 120 },
        ];
  const length = (phase: { answers?: number; durationSeconds: number }) =>
    phase.answers === undefined ? `${phase.durationSeconds} s` : `${phase.answers} answers`;
  if (warmupSeconds > 0) {
    say(`${label}: warm-up ${length(warmUp)}`);
    await runLoad(
      `${label} (warm-up)`,
      { ...load, ...warmUp },
      { warmUp: true, signal: loadAbort.signal },
    );
    failIfCrashed();
  }
  say(`${label}: ${length(measured)}, ${scenario.connections} connections`);
  const cpuUse = await startCpuUse(postgresPids);
  const summary = await runLoad(label, { ...load, ...measured }, { signal: loadAbort.signal });
  const cpu = await cpuUse.stop(summary.requests, summary.cpuMs);
  failIfCrashed();
  return { summary, cpu };
}

/**
 * Requests per second the machine's cores allow a server, from its measured CPU ms per request
 * (its own process or processes and its PostgreSQL backends; the load generator and other work
 * apart). Better Auth is one process: its JavaScript, scrypt included, has one core at most.
 */
function cpuAllows(server: Server, cpu: CpuUse) {
  const own = server.name === 'Tollgate' ? /^API/ : /^Better Auth server/;
  const serverMs = serverMsPerOperation(cpu, new RegExp(`${own.source}|^PostgreSQL`));
  const ownCores = server.name === 'Tollgate' ? cpu.cores : 1;
  const perSecond = Math.min(
    (cpu.cores * 1000) / serverMs,
    (ownCores * 1000) / serverMsPerOperation(cpu, own),
  );
  return { serverMs, perSecond };
}

// --- The run ---

const fixed = (value: number, digits = 0) => value.toFixed(digits);

try {
  // Logs (appended to by each process) and profiles of this run only.
  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(workDir, { recursive: true });
  const loadBefore = loadavg();
  say(`load average before: ${loadBefore.map((value) => fixed(value, 2)).join(' ')}`);

  say('timing the password hashes alone');
  const hashes = await timePasswordHashes();
  console.table(
    Object.fromEntries(
      hashes.argon2.map(({ hash, verify }) => {
        const scrypt = hashes.scrypt.find((timing) => timing.hash.concurrency === hash.concurrency);
        return [
          `${hash.concurrency} at once`,
          {
            'argon2id hash (ms)': fixed(hash.batchMs, 1),
            'argon2id verify (ms)': fixed(verify.batchMs, 1),
            'argon2id verify/s': fixed(verify.perSecond),
            'scrypt hash (ms)': scrypt ? fixed(scrypt.hash.batchMs, 1) : '',
            'scrypt verify (ms)': scrypt ? fixed(scrypt.verify.batchMs, 1) : '',
            'scrypt verify/s': scrypt ? fixed(scrypt.verify.perSecond, 1) : '',
          },
        ];
      }),
    ),
  );

  say('starting the test stack');
  const stack = await run.startStack();
  // One after the other: a failure then leaves nothing starting behind the clean-up.
  const tollgateDatabase = new URL(stack.addresses.databaseUrl).pathname.slice(1);
  const servers = [
    await seedUser('Tollgate', { url: await startTollgate(stack), database: tollgateDatabase }),
    await seedUser('Better Auth', await startBetterAuth(stack)),
  ];
  const orm = await openOrm(stack.addresses.databaseUrl, 1);
  run.closeOnCleanUp(() => orm.close());

  const results = [];
  for (const scenario of scenarios.filter(({ name }) => !only || name.includes(only))) {
    const [tollgateServer, betterAuthServer] = servers as [Server, Server];
    const [tollgate, betterAuth] = [
      await measure(scenario, tollgateServer, postgresBackends(orm, tollgateServer.database)),
      await measure(scenario, betterAuthServer, postgresBackends(orm, betterAuthServer.database)),
    ];
    const ratio = tollgate.summary.requestsPerSecond / betterAuth.summary.requestsPerSecond;
    const targetMet = scenario.targetRatio === undefined ? null : ratio >= scenario.targetRatio;
    const [tollgateAllows, betterAuthAllows] = [
      cpuAllows(tollgateServer, tollgate.cpu),
      cpuAllows(betterAuthServer, betterAuth.cpu),
    ];
    results.push({
      scenario: scenario.name,
      connections: scenario.connections,
      tollgate: tollgate.summary,
      betterAuth: betterAuth.summary,
      ratio,
      targetRatio: scenario.targetRatio ?? null,
      targetMet,
      cpu: { tollgate: tollgate.cpu, betterAuth: betterAuth.cpu },
      capacity: {
        tollgateServerCpuMsPerRequest: Number(tollgateAllows.serverMs.toFixed(2)),
        betterAuthServerCpuMsPerRequest: Number(betterAuthAllows.serverMs.toFixed(2)),
        tollgateCpuBound: cpuBound(tollgate.cpu),
        betterAuthCpuBound: cpuBound(betterAuth.cpu),
        tollgateRequestsPerSecondTheCoresAllow: Math.round(tollgateAllows.perSecond),
        betterAuthRequestsPerSecondTheCoresAllow: Number(betterAuthAllows.perSecond.toFixed(1)),
        ratioTheCoresAllow: Number(
          (tollgateAllows.perSecond / betterAuthAllows.perSecond).toFixed(2),
        ),
      },
    });
  }
  const loadAfter = loadavg();

  console.table(
    Object.fromEntries(
      results.map((result) => [
        result.scenario,
        {
          'Tollgate req/s': fixed(result.tollgate.requestsPerSecond),
          'Better Auth req/s': fixed(result.betterAuth.requestsPerSecond, 1),
          ratio: `${fixed(result.ratio, 2)}x`,
          'Tollgate p50/p99 (ms)': `${result.tollgate.latencyP50Ms} / ${result.tollgate.latencyP99Ms}`,
          'Better Auth p50/p99 (ms)': `${result.betterAuth.latencyP50Ms} / ${result.betterAuth.latencyP99Ms}`,
          target: result.targetRatio === null ? '' : `>= ${result.targetRatio}x`,
          met: result.targetMet === null ? '' : result.targetMet ? 'yes' : 'NO',
        },
      ]),
    ),
  );
  say('CPU ms per request of each process during the measured runs');
  console.table(
    cpuTable(
      Object.fromEntries(
        results.flatMap((result) => [
          [`${result.scenario} on Tollgate`, result.cpu.tollgate],
          [`${result.scenario} on Better Auth`, result.cpu.betterAuth],
        ]),
      ),
    ),
  );
  console.table(
    Object.fromEntries(
      results.map(({ scenario, capacity, targetRatio }) => [
        scenario,
        {
          'Tollgate CPU ms/req (API + PG)': capacity.tollgateServerCpuMsPerRequest,
          'Better Auth CPU ms/req (server + PG)': capacity.betterAuthServerCpuMsPerRequest,
          'CPU-bound (Tollgate / Better Auth)': `${capacity.tollgateCpuBound ? 'yes' : 'no'} / ${capacity.betterAuthCpuBound ? 'yes' : 'no'}`,
          'req/s the cores allow (Tollgate / Better Auth)': `${capacity.tollgateRequestsPerSecondTheCoresAllow} / ${capacity.betterAuthRequestsPerSecondTheCoresAllow}`,
          'ratio the cores allow': `${capacity.ratioTheCoresAllow}x`,
          target: targetRatio === null ? '' : `>= ${targetRatio}x`,
        },
      ]),
    ),
  );
  for (const result of results) {
    if (result.targetMet === false) {
      say(
        `target missed: ${result.scenario} at ${fixed(result.ratio, 2)}x, needs ${result.targetRatio}x`,
      );
    }
  }
  say(`load average after: ${loadAfter.map((value) => fixed(value, 2)).join(' ')}`);
  if (cpuProfile) say(`CPU profile of the API written to ${workDir} when it stops`);

  writeBenchResults('auth', {
    durationSeconds,
    warmupSeconds,
    cpuProfile,
    settings: {
      tollgate: 'NODE_ENV=test LOG_LEVEL=warn TOLLGATE_AUTH_RATE_LIMIT=off cookie cache off',
      betterAuth: '1.3.34 NODE_ENV=production, admin + apiKey plugins, rateLimit off',
    },
    scenarios: results,
    passwordHashes: hashes,
    loadAverage: { before: loadBefore, after: loadAfter },
    measuredAt: new Date().toISOString(),
  });
} catch (error) {
  say(`FAILED: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  say('cleaning up');
  await run.cleanUp();
}
