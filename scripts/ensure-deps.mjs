// Runs before `npm start` and `npm test` on whatever Node the machine has (it may be older
// than the project's): installs the locked dependencies, including the project's own Node 24,
// when node_modules is missing or was installed from another lockfile. On such a run it also
// starts building, in the background, the Go tools no one has built yet, so that they compile
// while npm installs; devstack/tools.ts waits for those builds when it needs the tools.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  cachedGoToolPath,
  findOnPath,
  goTools,
  installedGoTool,
  isExecutable,
  userCacheDir,
} from '../devstack/go-tools.mjs';

const root = join(import.meta.dirname, '..');
const marker = join(root, 'node_modules', '.tollgate-lockfile-sha256');
const lockfile = readFileSync(join(root, 'package-lock.json'));
const wanted = createHash('sha256').update(lockfile).digest('hex');
const installed = existsSync(marker) ? readFileSync(marker, 'utf8').trim() : '';

const say = (line) => console.log(`[tollgate] ${line}`);

/**
 * `npm install`, not `npm ci`: this npm leaves other platforms' optional packages out of the
 * lockfile, which `npm ci` then refuses; `install` still keeps to the locked versions. The
 * machine's Node is often older than the engines field asks, and npm would warn about it for
 * the project and every package that asks for a newer Node; the project runs on the Node 24
 * this very install brings, so only errors are shown (and a user's engine-strict cannot refuse).
 */
const npmInstallArguments = [
  'install',
  '--no-audit',
  '--no-fund',
  '--engine-strict=false',
  '--loglevel=error',
];

/** The Go tools this command needs that are neither configured, installed nor cached. */
function toolsToBuild() {
  const needed = ['temporal', 'stripe-mock'];
  if (process.env.npm_lifecycle_event === 'pretest') needed.push('versitygw');
  return needed.filter(
    (name) =>
      !process.env[goTools[name].pathVariable] &&
      !installedGoTool(name) &&
      !isExecutable(cachedGoToolPath(name)),
  );
}

if (installed !== wanted) {
  const tools = findOnPath('go') ? toolsToBuild() : [];
  if (tools.length) {
    // Not detached: Ctrl-C stops these builds too, and the next run takes their locks over.
    spawn(process.execPath, [join(root, 'devstack', 'go-tools.mjs'), ...tools], {
      cwd: root,
      stdio: 'ignore',
    }).unref();
    const names = tools.map((name) => `${name} ${goTools[name].version}`).join(', ');
    say(`${names} building with Go in the background (first run only; logs in ${userCacheDir()})`);
  }
  say('npm install … (first run, or package-lock.json changed)');
  const started = Date.now();
  try {
    execFileSync('npm', npmInstallArguments, { cwd: root, stdio: 'inherit' });
  } catch (error) {
    say(`npm install failed (${error.status ?? error.message})`);
    process.exit(1);
  }
  say(`npm install … done (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  writeFileSync(
    marker,
    createHash('sha256')
      .update(readFileSync(join(root, 'package-lock.json')))
      .digest('hex'),
  );
}
