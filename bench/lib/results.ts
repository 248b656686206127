import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../config/env.ts';

/** Writes a benchmark's figures to `bench/results/<name>.json` (gitignored). */
export function writeBenchResults(name: string, results: object) {
  const resultsDir = join(projectRoot, 'bench', 'results');
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(join(resultsDir, `${name}.json`), `${JSON.stringify(results, null, 2)}\n`);
}
