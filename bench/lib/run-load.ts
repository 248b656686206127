import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import type { LoadOptions, LoadSummary } from './load-generator.ts';

export type { LoadOptions, LoadSummary };

const loadGenerator = join(import.meta.dirname, 'load-generator.ts');

/**
 * One autocannon run from its own process (see load-generator.ts). Any answer but 2xx, an error
 * or a timeout makes it no result; so does a run that got no answer at all, unless it is a
 * warm-up that may be too short for a slow route. Aborting `signal` kills the generator.
 */
export async function runLoad(
  label: string,
  load: LoadOptions,
  { warmUp = false, signal }: { warmUp?: boolean; signal?: AbortSignal } = {},
): Promise<LoadSummary> {
  const child = spawn(process.execPath, [loadGenerator, JSON.stringify(load)], {
    stdio: ['ignore', 'pipe', 'inherit'],
    signal,
    killSignal: 'SIGKILL',
    timeout: (load.durationSeconds + 60) * 1000,
  });
  child.on('error', () => undefined); // an abort surfaces as the exit code below
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error(`${label}: the load generator exited with ${code}`);
  const summary = JSON.parse(output) as LoadSummary;
  const noneAnswered = !warmUp && summary.requests === 0;
  if (summary.non2xx > 0 || summary.errors > 0 || summary.timeouts > 0 || noneAnswered) {
    throw new Error(
      `${label} is not a result: ${summary.requests} requests, ${summary.non2xx} non-2xx ` +
        `(status codes ${JSON.stringify(summary.statusCodes)}), ${summary.errors} errors, ` +
        `${summary.timeouts} timeouts`,
    );
  }
  return summary;
}
