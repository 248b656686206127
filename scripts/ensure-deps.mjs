// Runs before `npm start` and `npm test` on whatever Node the machine has (it may be older
// than the project's): installs the locked dependencies, including the project's own Node 24,
// when node_modules is missing or was installed from another lockfile.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const marker = join(root, 'node_modules', '.tollgate-lockfile-sha256');
const lockfile = readFileSync(join(root, 'package-lock.json'));
const wanted = createHash('sha256').update(lockfile).digest('hex');
const installed = existsSync(marker) ? readFileSync(marker, 'utf8').trim() : '';

if (installed !== wanted) {
  console.log('[tollgate] Installing dependencies...');
  // `npm install`, not `npm ci`: this npm leaves other platforms' optional packages out of the
  // lockfile, which `npm ci` then refuses; `install` still keeps to the locked versions.
  execFileSync('npm', ['install', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  writeFileSync(
    marker,
    createHash('sha256')
      .update(readFileSync(join(root, 'package-lock.json')))
      .digest('hex'),
  );
}
