/**
 * `npm test`: every check the project has, in order — format and lint, type-check of every
 * folder, the dashboard build, then unit, integration and replay tests with Node's test runner
 * against real PostgreSQL, a Temporal dev server, stripe-mock and the worker process.
 *
 *   npm test                          everything
 *   npm test -- api/routes            only the test files under these paths (checks still run)
 *   npm test -- --quick api/routes    the same without lint, type-check and dashboard build
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../config/env.ts';
import { ensureChromium } from '../devstack/chromium.ts';
import { buildDashboard } from '../devstack/dashboard.ts';
import { StartupError } from '../devstack/supervisor.ts';
import { startTestStack, type TestStack } from '../devstack/test-stack.ts';
import { productFolders } from './import-layers.ts';

const say = (line: string) => console.log(`[test] ${line}`);
const bin = (path: string) => join(projectRoot, 'node_modules', path);

/**
 * Folders that hold tests; `*.test.ts` files anywhere below them run (the dashboard's: unit tests
 * of its pure helpers, run by Node like the rest).
 */
const testRoots = [...productFolders, 'devstack', 'scripts', 'dashboard/src'];

function runStep(command: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  return new Promise<number>((resolve) => {
    const child = spawn(command, args, { cwd: projectRoot, env, stdio: 'inherit' });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const timings: [string, number][] = [];

async function step(name: string, work: () => Promise<number | undefined>): Promise<void> {
  say(name);
  const started = performance.now();
  const code = await work();
  timings.push([name, performance.now() - started]);
  if (code) throw new StartupError(`${name} failed (exit code ${code})`);
}

const quick = process.argv.includes('--quick');
const selected = process.argv.slice(2).filter((argument) => argument !== '--quick');
const patterns = (selected.length ? selected : testRoots).map((path) =>
  path.endsWith('.ts') ? path : `${path.replace(/\/$/, '')}/**/*.test.ts`,
);

let stack: TestStack | undefined;
let exitCode = 0;
const stopStack = async () => {
  await stack?.stop();
  stack = undefined;
};
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void stopStack().then(() => process.exit(130)));
}

async function checks() {
  await step('Format and lint (biome)', () =>
    runStep(process.execPath, [bin('@biomejs/biome/bin/biome'), 'check', '.']),
  );
  await step('Type-check server code', () =>
    runStep(process.execPath, [bin('typescript/bin/tsc'), '-p', 'tsconfig.json']),
  );
  await step('Type-check dashboard', () =>
    runStep(process.execPath, [bin('typescript/bin/tsc'), '-p', 'dashboard/tsconfig.json']),
  );
  await step('Build dashboard', async () => {
    await buildDashboard();
    return 0;
  });
}

/** The browser tests (the checkout page's, the portal's, the dashboard's): they need Debian's chromium. */
const browserTests = readdirSync(join(projectRoot, 'api'))
  .filter((file) => /^(checkout-page|portal-page|dashboard)(-[\w-]+)?\.test\.ts$/.test(file))
  .map((file) => `api/${file}`);
const needsBrowser =
  selected.length === 0 ||
  selected.some((path) =>
    browserTests.some((browserTest) => browserTest.startsWith(path.replace(/\/$/, ''))),
  );

try {
  if (!quick) await checks();
  if (needsBrowser) {
    await step('Chromium for the browser test', async () => {
      await ensureChromium(say);
      return 0;
    });
  }
  await step('Start PostgreSQL, Temporal, stripe-mock, mail capture and the worker', async () => {
    stack = await startTestStack(say);
    return 0;
  });
  const testEnv = { ...process.env, ...stack?.env };
  await step('Unit, integration and replay tests', () =>
    runStep(
      process.execPath,
      ['--test', '--test-reporter=spec', '--test-timeout=120000', ...patterns],
      testEnv,
    ),
  );
} catch (error) {
  console.error(error instanceof StartupError ? `[test] ${error.message}` : error);
  exitCode = 1;
} finally {
  await stopStack();
}

say('Timings:');
for (const [name, ms] of timings) say(`  ${(ms / 1000).toFixed(1).padStart(6)} s  ${name}`);
process.exit(exitCode);
