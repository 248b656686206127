/** `npm run bench`: runs every benchmark script in this folder, one after another. */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const benchmarks = readdirSync(import.meta.dirname).filter(
  (file) => file.endsWith('.ts') && file !== 'run-all.ts',
);
for (const file of benchmarks) {
  console.log(`\n== ${file}`);
  const { status } = spawnSync(process.execPath, [join(import.meta.dirname, file)], {
    stdio: 'inherit',
  });
  if (status !== 0) process.exitCode = 1;
}
