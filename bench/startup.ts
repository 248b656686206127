/**
 * Start-up benchmark: time from `node scripts/start.ts` to "Tollgate is ready" on a new data
 * folder (cold: initdb, migrations, seed) and on the same folder again (warm), and the resident
 * memory of the API and worker processes once idle. Go-built tools are taken as already built.
 *
 *   node bench/startup.ts [runs=3]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { projectRoot } from '../config/env.ts';
import { findFreePort } from '../devstack/supervisor.ts';
import { writeBenchResults } from './lib/results.ts';

const runs = Number(process.argv[2] ?? 3);
const dataDir = join(projectRoot, '.data', 'bench-startup');

async function benchEnvironment(): Promise<NodeJS.ProcessEnv> {
  const ports = await Promise.all(Array.from({ length: 5 }, () => findFreePort()));
  const [api, postgres, temporal, ui, stripe] = ports.map(String);
  return {
    ...process.env,
    TOLLGATE_DATA_DIR: dataDir,
    TOLLGATE_API_PORT: api,
    TOLLGATE_EMBEDDED_POSTGRES_PORT: postgres,
    TEMPORAL_DEV_PORT: temporal,
    TEMPORAL_UI_PORT: ui,
    STRIPE_MOCK_PORT: stripe,
    DATABASE_URL: '',
    TEMPORAL_ADDRESS: '',
    STRIPE_API_BASE: '',
  };
}

/** Resident memory in MiB of the start process's child running `script`. */
function childRssMiB(parentPid: number, script: string): number {
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (parent !== parentPid || !commandLine.includes(script)) continue;
      const rssKiB = Number(
        /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1],
      );
      return rssKiB / 1024;
    } catch {
      // The process ended while we read it.
    }
  }
  return Number.NaN;
}

async function startOnce(): Promise<{ seconds: number; apiMiB: number; workerMiB: number }> {
  const started = performance.now();
  const child: ChildProcess = spawn(process.execPath, [join(projectRoot, 'scripts', 'start.ts')], {
    cwd: projectRoot,
    env: await benchEnvironment(),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Tollgate is ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`start exited with ${code}:\n${output}`)));
  });
  const seconds = (performance.now() - started) / 1000;
  await sleep(5000); // let both processes settle before reading their memory
  const apiMiB = childRssMiB(child.pid ?? 0, 'api/server.ts');
  const workerMiB = childRssMiB(child.pid ?? 0, 'temporal/worker.ts');
  child.kill('SIGINT');
  await exited;
  return { seconds, apiMiB, workerMiB };
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

const cold: number[] = [];
const warm: number[] = [];
const apiMemory: number[] = [];
const workerMemory: number[] = [];
for (let run = 0; run < runs; run++) {
  rmSync(dataDir, { recursive: true, force: true });
  cold.push((await startOnce()).seconds);
  const warmRun = await startOnce();
  warm.push(warmRun.seconds);
  apiMemory.push(warmRun.apiMiB);
  workerMemory.push(warmRun.workerMiB);
}
rmSync(dataDir, { recursive: true, force: true });

const results = {
  runs,
  coldStartSeconds: median(cold),
  warmStartSeconds: median(warm),
  apiIdleRssMiB: median(apiMemory),
  workerIdleRssMiB: median(workerMemory),
  samples: { cold, warm, apiMemory, workerMemory },
  measuredAt: new Date().toISOString(),
};
console.table({
  'cold start to ready (s)': results.coldStartSeconds.toFixed(1),
  'warm start to ready (s)': results.warmStartSeconds.toFixed(1),
  'API idle RSS (MiB)': results.apiIdleRssMiB.toFixed(0),
  'worker idle RSS (MiB)': results.workerIdleRssMiB.toFixed(0),
});
writeBenchResults('startup', results);
