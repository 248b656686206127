import { execFile } from 'node:child_process';
import { accessSync, constants, mkdirSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../config/env.ts';
import { StartupError } from './supervisor.ts';

const run = promisify(execFile);

/** The binaries that do not come from npm, pinned; built with Go when not installed. */
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
} as const;

export type GoToolName = keyof typeof goTools;

/** Project-local links to the binaries (gitignored). */
export const projectToolsDir = join(projectRoot, '.tools', 'bin');

/**
 * Builds are kept in the user's cache, outside the work tree, so that a fresh clone on the
 * same machine (CI's, for one) links to them instead of compiling again.
 */
function userCacheDir(): string {
  return join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'tollgate', 'tools');
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function findOnPath(name: string): string | undefined {
  for (const directory of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(directory, name);
    if (directory && isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Finds a tool: the configured path, then `.tools/bin`, then PATH, then the user cache;
 * failing all of them, builds it with Go. Answers undefined when there is no Go either.
 */
export async function locateGoTool(
  name: GoToolName,
  configuredPath: string | undefined,
  log: (line: string) => void,
): Promise<string | undefined> {
  const tool = goTools[name];
  if (configuredPath) {
    if (isExecutable(configuredPath)) return configuredPath;
    throw new StartupError(
      `${tool.pathVariable} must name an executable file (got ${configuredPath})`,
    );
  }
  const linked = join(projectToolsDir, name);
  if (isExecutable(linked)) return linked;
  const onPath = findOnPath(name);
  if (onPath) return onPath;

  const cached = join(userCacheDir(), `${name}@${tool.version}`, name);
  if (!isExecutable(cached)) {
    const go = findOnPath('go');
    if (!go) return undefined;
    await buildWithGo(go, name, cached, log);
  }
  mkdirSync(projectToolsDir, { recursive: true });
  rmSync(linked, { force: true });
  symlinkSync(cached, linked);
  return linked;
}

async function buildWithGo(
  go: string,
  name: GoToolName,
  target: string,
  log: (line: string) => void,
) {
  const { module, version } = goTools[name];
  log(`Building ${name} ${version} with Go (first run only; this takes a few minutes)...`);
  const started = Date.now();
  // Build into a scratch folder and move into place, so an interrupted build leaves nothing.
  const scratch = `${target}.building-${process.pid}`;
  mkdirSync(scratch, { recursive: true });
  try {
    await run(go, ['install', `${module}@${version}`], {
      env: { ...process.env, GOBIN: scratch },
      maxBuffer: 64 * 1024 * 1024,
    });
    renameSync(join(scratch, name), target);
  } catch (error) {
    const detail = error instanceof Error ? error.message.split('\n').slice(0, 5).join(' ') : '';
    throw new StartupError(
      `Could not build ${name} with Go (${detail}); install it yourself and set ${goTools[name].pathVariable}`,
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  log(`Built ${name} in ${Math.round((Date.now() - started) / 1000)} s`);
}
