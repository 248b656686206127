import { execFile } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../config/env.ts';

const run = promisify(execFile);
const dashboardRoot = join(projectRoot, 'dashboard');
const builtIndex = join(dashboardRoot, 'dist', 'index.html');

function newestChange(path: string): number {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  return Math.max(
    stats.mtimeMs,
    ...readdirSync(path).map((entry) => newestChange(join(path, entry))),
  );
}

function builtAt(): number {
  try {
    return statSync(builtIndex).mtimeMs;
  } catch {
    return 0;
  }
}

/** Builds the dashboard with Vite into dashboard/dist. */
export async function buildDashboard(): Promise<void> {
  const vite = join(projectRoot, 'node_modules', 'vite', 'bin', 'vite.js');
  await run(process.execPath, [vite, 'build', '--config', join(dashboardRoot, 'vite.config.ts')], {
    cwd: projectRoot,
    maxBuffer: 16 * 1024 * 1024,
  });
}

/** Rebuilds only when a source file is newer than the last build. */
export async function buildDashboardIfStale(log: (line: string) => void): Promise<void> {
  const sources = [
    ...['src', 'index.html', 'checkout.html', 'vite.config.ts'].map((entry) =>
      join(dashboardRoot, entry),
    ),
    // The bundle also takes the server's shared rules and wire schemas (and what they import).
    ...['domain', 'commerce', 'db/entities'].map((entry) => join(projectRoot, entry)),
  ];
  if (Math.max(...sources.map(newestChange)) <= builtAt()) return;
  log('Building the dashboard...');
  await buildDashboard();
}
