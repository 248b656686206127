// The binaries that do not come from npm (the Temporal CLI, stripe-mock, versitygw): where they
// are found, and how a missing one is built once with Go into the user's cache. Plain JavaScript
// on Node's own modules only, because scripts/ensure-deps.mjs starts the builds on whatever Node
// the machine has, before `npm install`; devstack/tools.ts uses the same functions (their types
// are in go-tools.d.mts).
//
// Several processes may want the same tool at once (ensure-deps' background build, `npm start`,
// test files run side by side). A lock file beside the build says who is building; the others
// wait for it. A lock whose process is gone, or whose heartbeat stopped, is taken over. Every
// build goes to a scratch folder and is renamed into place, so even two builders that raced past
// the lock leave one complete binary.
import { spawn } from 'node:child_process';
import {
  accessSync,
  closeSync,
  constants,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';

/** Pinned versions; `pathVariable` names the setting that points at an installed binary. */
export const goTools = {
  temporal: {
    module: 'github.com/temporalio/cli/cmd/temporal',
    // Later tags carry a `replace` directive, which `go install` refuses.
    version: 'v1.5.1',
    pathVariable: 'TEMPORAL_CLI_PATH',
  },
  'stripe-mock': {
    module: 'github.com/stripe/stripe-mock',
    version: 'v0.197.0',
    pathVariable: 'STRIPE_MOCK_PATH',
  },
  /** An S3-compatible server over a folder, for the tests of S3 file storage. */
  versitygw: {
    module: 'github.com/versity/versitygw/cmd/versitygw',
    version: 'v1.8.0',
    pathVariable: 'VERSITYGW_PATH',
  },
};

/** A builder refreshes its lock this often; a lock untouched for `staleAfterMs` is abandoned. */
const heartbeatMs = 5_000;
const staleAfterMs = 60_000;

/**
 * Builds are kept in the user's cache, outside the work tree, so that a fresh clone on the
 * same machine (CI's, for one) uses them instead of compiling again.
 */
export function userCacheDir(env = process.env) {
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'tollgate', 'tools');
}

export function cachedGoToolPath(name, cacheDir = userCacheDir()) {
  return join(cacheDir, `${name}@${goTools[name].version}`, name);
}

export function isExecutable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function findOnPath(name, env = process.env) {
  for (const directory of (env.PATH ?? '').split(delimiter)) {
    const candidate = join(directory, name);
    if (directory && isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/** Project-local links to the binaries (gitignored). */
export const projectToolsDir = join(import.meta.dirname, '..', '.tools', 'bin');

/** An installed copy that needs no build: the project's link, then PATH. */
export function installedGoTool(name, env = process.env) {
  const linked = join(projectToolsDir, name);
  return isExecutable(linked) ? linked : findOnPath(name, env);
}

const seconds = (since) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

function readLock(path) {
  try {
    const { pid, started } = JSON.parse(readFileSync(path, 'utf8'));
    return { pid, started, touched: statSync(path).mtimeMs };
  } catch {
    // Gone, or caught between its creation and its first write: the caller looks again.
    return undefined;
  }
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

function tryLock(path) {
  try {
    const fd = openSync(path, 'wx');
    const lock = { pid: process.pid, started: Date.now() };
    writeSync(fd, JSON.stringify(lock));
    closeSync(fd);
    return lock;
  } catch (error) {
    if (error.code === 'EEXIST') return undefined;
    throw error;
  }
}

/**
 * Moves an abandoned lock aside and removes what its builder left. Should another waiter have
 * replaced it in the meantime, that fresh lock is put back (or, if a third took the place, both
 * build: the rename into place keeps that harmless).
 */
function takeOver(path, abandoned, target) {
  const aside = `${path}.${process.pid}`;
  try {
    renameSync(path, aside);
  } catch {
    return;
  }
  const moved = readLock(aside);
  if (moved && (moved.pid !== abandoned.pid || moved.started !== abandoned.started)) {
    try {
      linkSync(aside, path);
    } catch {}
  } else {
    rmSync(`${target}.building-${abandoned.pid}`, { recursive: true, force: true });
  }
  rmSync(aside, { force: true });
}

function releaseLock(path, lock) {
  const current = readLock(path);
  if (current?.pid === lock.pid && current.started === lock.started) rmSync(path, { force: true });
}

async function build(go, name, target, logFile) {
  const { module, version } = goTools[name];
  // Build into a scratch folder and move into place, so an interrupted build leaves nothing.
  const scratch = `${target}.building-${process.pid}`;
  mkdirSync(scratch, { recursive: true });
  const output = openSync(logFile, 'w');
  try {
    const code = await new Promise((resolve, reject) => {
      const child = spawn(go, ['install', `${module}@${version}`], {
        env: { ...process.env, GOBIN: scratch },
        stdio: ['ignore', output, output],
      });
      child.on('error', reject);
      child.on('exit', (exitCode, signal) => resolve(exitCode ?? signal));
    });
    if (code !== 0) {
      throw new Error(
        `Could not build ${name} ${version} with Go (go install ended with ${code}; its output is in ${logFile})`,
      );
    }
    renameSync(join(scratch, name), target);
    rmSync(logFile, { force: true });
  } finally {
    closeSync(output);
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * Answers the cached binary of `name`, building it with `go` when nobody has, or waiting for the
 * process that is building it. `log` gets a line when the wait or build starts and one when the
 * binary is ready, with the build's elapsed time.
 */
export async function ensureGoTool(
  name,
  { go, cacheDir = userCacheDir(), log = () => {}, pollMs = 500 },
) {
  const { version } = goTools[name];
  const target = cachedGoToolPath(name, cacheDir);
  const lockFile = `${dirname(target)}.lock`;
  const logFile = `${dirname(target)}.log`;
  mkdirSync(dirname(target), { recursive: true });
  let waitingFor;
  while (!isExecutable(target)) {
    const lock = tryLock(lockFile);
    if (lock) {
      const heartbeat = setInterval(() => {
        try {
          utimesSync(lockFile, new Date(), new Date());
        } catch {}
      }, heartbeatMs);
      try {
        // The build we waited for may have finished between our look and our lock.
        if (isExecutable(target)) break;
        log(`${name} ${version} building with Go (first run only; output in ${logFile}) …`);
        await build(go, name, target, logFile);
        log(`${name} ${version} built (${seconds(lock.started)})`);
        return target;
      } finally {
        clearInterval(heartbeat);
        releaseLock(lockFile, lock);
      }
    }
    const holder = readLock(lockFile);
    if (holder && (!isAlive(holder.pid) || Date.now() - holder.touched > staleAfterMs)) {
      takeOver(lockFile, holder, target);
      continue;
    }
    if (holder && waitingFor?.started !== holder.started) {
      waitingFor = holder;
      log(
        `${name} ${version} is being built by process ${holder.pid} (for ${seconds(holder.started)} so far; output in ${logFile}) …`,
      );
    }
    await sleep(pollMs);
  }
  if (waitingFor) log(`${name} ${version} built (${seconds(waitingFor.started)})`);
  return target;
}

// `node devstack/go-tools.mjs <tool>...` builds the named tools side by side (what ensure-deps
// starts in the background); it exits with 1 if any build failed.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const go = findOnPath('go');
  if (!go) {
    console.error('go is not on PATH');
    process.exit(1);
  }
  const results = await Promise.allSettled(
    process.argv.slice(2).map((name) => ensureGoTool(name, { go, log: console.log })),
  );
  for (const result of results) {
    if (result.status === 'rejected') console.error(result.reason.message);
  }
  process.exitCode = results.some((result) => result.status === 'rejected') ? 1 : 0;
}
