import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { projectRoot } from '../config/env.ts';

/**
 * The soak's short form (bench/soak.ts --short): a minute of mixed traffic on a stack of its own
 * (3-D Secure buyers and organization invitations among it) while an API process, a worker
 * process, the Temporal dev server and PostgreSQL are each killed or restarted once and Stripe's
 * network fails twice; then every invariant must hold.
 */
describe('the soak, short form', () => {
  it('keeps every invariant while the stack fails under mixed traffic', {
    timeout: 600_000,
  }, async () => {
    const resultsFile = join(projectRoot, 'bench', 'results', 'soak.json');
    rmSync(resultsFile, { force: true });
    const soak = spawn(process.execPath, [join(projectRoot, 'bench', 'soak.ts'), '--short'], {
      cwd: projectRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    soak.stdout.on('data', (chunk) => {
      output += chunk;
    });
    soak.stderr.on('data', (chunk) => {
      output += chunk;
    });
    const code = await new Promise<number | null>((resolve) => soak.on('exit', resolve));
    assert.ok(code !== null, output);
    const results = JSON.parse(readFileSync(resultsFile, 'utf8')) as {
      violations: unknown[];
      faults: Record<string, number>;
      operations: Record<string, { completed: number }>;
      invariants: { invariant: string; checked: boolean }[];
    };
    assert.deepEqual(results.violations, [], output);
    assert.equal(code, 0, output);
    for (const kind of [
      'API process SIGKILL',
      'worker process SIGKILL',
      'Temporal dev server SIGKILL',
      'PostgreSQL restart (fast shutdown)',
    ]) {
      assert.ok((results.faults[kind] ?? 0) >= 1, `${kind} injected\n${output}`);
    }
    assert.ok((results.operations['checkout paid']?.completed ?? 0) > 0, output);
    const completed = (prefix: string) =>
      Object.entries(results.operations)
        .filter(([kind]) => kind.startsWith(prefix))
        .reduce((sum, [, counted]) => sum + counted.completed, 0);
    assert.ok(completed('3-D Secure checkout ') > 0, output);
    assert.ok(completed('invitation ') > 0, output);
    for (const invariant of [
      'each 3-D Secure checkout paid once, abandoned ones never',
      'each accepted invitation made exactly one membership',
      'no invitation accepted after cancel or expiry',
    ]) {
      const result = results.invariants.find((found) => found.invariant === invariant);
      assert.equal(result?.checked, true, `${invariant} checked\n${output}`);
    }
  });
});
