import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { projectRoot } from '../config/env.ts';
import { eventually } from './eventually.ts';
import { cachedGoToolPath, ensureGoTool, isExecutable } from './go-tools.mjs';

const runFile = promisify(execFile);
const scratch = mkdtempSync(join(tmpdir(), 'tollgate-tools-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * A folder with a stand-in for `go` (a shell script, so no test compiles anything): it writes
 * each `go install module@version` it is asked for to `calls`, takes a second, and leaves an
 * executable named after the module in $GOBIN, or fails like Go does.
 */
function fakeGo(name: string, outcome: 'builds' | 'fails' = 'builds') {
  const folder = join(scratch, name);
  const bin = join(folder, 'bin');
  mkdirSync(bin, { recursive: true });
  const calls = join(folder, 'calls');
  writeFileSync(calls, '');
  const result =
    outcome === 'builds'
      ? `module=\${2%@*}; printf '#!/bin/sh\\n' > "$GOBIN/\${module##*/}"; chmod +x "$GOBIN/\${module##*/}"`
      : `echo "go: module $2: not found" >&2; exit 1`;
  writeFileSync(join(bin, 'go'), `#!/bin/sh\necho "$2" >> '${calls}'\nsleep 1\n${result}\n`, {
    mode: 0o755,
  });
  const builds = () => readFileSync(calls, 'utf8').split('\n').filter(Boolean);
  return { folder, bin, go: join(bin, 'go'), cacheDir: join(folder, 'tollgate', 'tools'), builds };
}

const goToolsScript = join(projectRoot, 'devstack', 'go-tools.mjs');

describe('Go tool builds', () => {
  it('builds a tool once when two processes (and two callers in one) want it at once', async () => {
    const { folder, bin, go, cacheDir, builds } = fakeGo('concurrent');
    const lines: string[] = [];
    const options = { go, cacheDir, log: (line: string) => lines.push(line), pollMs: 50 };
    // The command-line form is what ensure-deps starts in the background; it takes the lock.
    const otherProcess = runFile(process.execPath, [goToolsScript, 'stripe-mock'], {
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, XDG_CACHE_HOME: folder },
    });
    const lockFile = join(cacheDir, 'stripe-mock@v0.197.0.lock');
    await eventually(
      () => existsSync(lockFile),
      (locked) => locked,
      { what: 'the lock' },
    );
    const paths = await Promise.all([
      ensureGoTool('stripe-mock', options),
      ensureGoTool('stripe-mock', options),
    ]);
    await otherProcess;

    assert.deepEqual(builds(), ['github.com/stripe/stripe-mock@v0.197.0']);
    const target = cachedGoToolPath('stripe-mock', cacheDir);
    assert.deepEqual(paths, [target, target]);
    assert.ok(isExecutable(target));
    assert.ok(!existsSync(`${dirname(target)}.lock`), 'the lock is released');
    const builder = otherProcess.child.pid;
    assert.ok(
      lines.some((line) => line.includes(`is being built by process ${builder}`)),
      lines.join('\n'),
    );
    assert.ok(lines.some((line) => /^stripe-mock v0\.197\.0 built \(\d+\.\d s\)$/.test(line)));
  });

  it('takes over the lock of a builder that died, and clears what it left', async () => {
    const { go, cacheDir, builds } = fakeGo('stale');
    const target = cachedGoToolPath('temporal', cacheDir);
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    mkdirSync(`${target}.building-${dead}`, { recursive: true });
    writeFileSync(`${dirname(target)}.lock`, JSON.stringify({ pid: dead, started: Date.now() }));

    const started = Date.now();
    assert.equal(await ensureGoTool('temporal', { go, cacheDir, pollMs: 50 }), target);
    // At once, not only after the dead builder's heartbeat went stale (a minute).
    assert.ok(Date.now() - started < 20_000, `took ${Date.now() - started} ms`);
    assert.deepEqual(builds(), ['github.com/temporalio/cli/cmd/temporal@v1.5.1']);
    assert.ok(isExecutable(target));
    assert.ok(!existsSync(`${target}.building-${dead}`));
    assert.ok(!existsSync(`${dirname(target)}.lock`));
  });

  it('keeps a failed build’s output in a log the error names, and frees the lock', async () => {
    const { go, cacheDir } = fakeGo('failing', 'fails');
    const logFile = join(cacheDir, 'versitygw@v1.8.0.log');
    await assert.rejects(ensureGoTool('versitygw', { go, cacheDir }), (error: Error) => {
      assert.match(error.message, /Could not build versitygw v1\.8\.0 with Go/);
      assert.ok(error.message.includes(logFile), error.message);
      return true;
    });
    assert.match(readFileSync(logFile, 'utf8'), /go: module .*versitygw@v1\.8\.0: not found/);
    assert.ok(!existsSync(join(cacheDir, 'versitygw@v1.8.0.lock')));
    assert.ok(!existsSync(cachedGoToolPath('versitygw', cacheDir)));
  });
});

describe('ensure-deps', () => {
  it('installs quietly while the missing tools build in the background, and then does nothing', async () => {
    // A copy of the two scripts in a project of their own, with stand-ins for npm and go.
    const { folder, bin, builds } = fakeGo('ensure-deps');
    const project = join(folder, 'project');
    mkdirSync(join(project, 'scripts'), { recursive: true });
    mkdirSync(join(project, 'devstack'));
    copyFileSync(
      join(projectRoot, 'scripts', 'ensure-deps.mjs'),
      join(project, 'scripts', 'ensure-deps.mjs'),
    );
    copyFileSync(goToolsScript, join(project, 'devstack', 'go-tools.mjs'));
    writeFileSync(join(project, 'package-lock.json'), '{"lockfileVersion": 3}');
    const npmCalls = join(folder, 'npm-calls');
    writeFileSync(
      join(bin, 'npm'),
      `#!/bin/sh\necho "$*" >> '${npmCalls}'\nmkdir -p node_modules\n`,
      {
        mode: 0o755,
      },
    );
    const ensureDeps = () =>
      runFile(process.execPath, [join(project, 'scripts', 'ensure-deps.mjs')], {
        env: {
          PATH: `${bin}:/usr/bin:/bin`,
          HOME: folder,
          XDG_CACHE_HOME: folder,
          npm_lifecycle_event: 'prestart',
        },
      });
    const cacheDir = join(folder, 'tollgate', 'tools');

    const first = await ensureDeps();
    const npmArguments = readFileSync(npmCalls, 'utf8').trim().split(' ');
    assert.equal(npmArguments[0], 'install');
    assert.ok(npmArguments.includes('--loglevel=error'), npmArguments.join(' '));
    assert.ok(npmArguments.includes('--engine-strict=false'), npmArguments.join(' '));
    assert.match(
      first.stdout,
      /\[tollgate\] temporal v1\.5\.1, stripe-mock v0\.197\.0 building with Go in the background/,
    );
    assert.match(first.stdout, /\[tollgate\] npm install … done \(\d+\.\d s\)/);
    await eventually(
      () => ['temporal', 'stripe-mock'] as const,
      (names) => names.every((name) => isExecutable(cachedGoToolPath(name, cacheDir))),
      { what: 'the background builds' },
    );
    // `npm start` needs no versitygw; only `npm test`'s first run builds it too.
    assert.deepEqual(builds().sort(), [
      'github.com/stripe/stripe-mock@v0.197.0',
      'github.com/temporalio/cli/cmd/temporal@v1.5.1',
    ]);

    const second = await ensureDeps();
    assert.equal(second.stdout, '');
    assert.equal(readFileSync(npmCalls, 'utf8').trim().split('\n').length, 1);
    assert.equal(builds().length, 2);
  });
});
