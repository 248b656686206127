import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  assertPortFree,
  findFreePort,
  StartupError,
  Supervisor,
  waitUntilReady,
} from './supervisor.ts';

const logDir = mkdtempSync(join(tmpdir(), 'tollgate-supervisor-'));
const isRunning = (pid: number | undefined) => {
  try {
    return pid !== undefined && process.kill(pid, 0);
  } catch {
    return false;
  }
};

describe('supervisor', () => {
  it('stops every child it started, and logs their output to files', async () => {
    const supervisor = new Supervisor(() => assert.fail('no child should die on its own'));
    const logFile = join(logDir, 'sleeper.log');
    const children = [1, 2].map((n) =>
      supervisor.spawn({
        name: `sleeper-${n}`,
        command: process.execPath,
        args: ['-e', `console.log('sleeper ${n} up'); setInterval(() => {}, 1000)`],
        logFile,
      }),
    );
    await waitUntilReady(
      'sleepers',
      async () => readFileSync(logFile, 'utf8').split('\n').length > 2,
    );
    await supervisor.stopAll();
    assert.ok(children.every((child) => !isRunning(child.pid)));
    assert.match(readFileSync(logFile, 'utf8'), /sleeper 1 up/);
  });

  it('reports a child that dies unasked, by name and exit code', async () => {
    const died = new Promise<[string, number | null]>((resolve) => {
      const supervisor = new Supervisor((service, code) => resolve([service, code]));
      supervisor.spawn({
        name: 'crasher',
        command: process.execPath,
        args: ['-e', 'process.exit(3)'],
        logFile: join(logDir, 'crasher.log'),
      });
    });
    assert.deepEqual(await died, ['crasher', 3]);
  });

  it('names the port that is already taken', async () => {
    const port = await findFreePort();
    const holder = createServer().listen(port, '127.0.0.1');
    await new Promise((resolve) => holder.once('listening', resolve));
    try {
      await assert.rejects(
        assertPortFree(port, '127.0.0.1', 'Temporal frontend'),
        (error: unknown) => {
          assert.ok(error instanceof StartupError);
          assert.equal(
            error.message,
            `Port ${port} (Temporal frontend) is already in use on 127.0.0.1; stop what holds it or choose another port`,
          );
          return true;
        },
      );
    } finally {
      holder.close();
    }
    await assertPortFree(port, '127.0.0.1', 'Temporal frontend');
  });

  it('gives up on a service that never becomes ready, with the last reason', async () => {
    await assert.rejects(
      waitUntilReady(
        'stripe-mock',
        async () => {
          throw new Error('connection refused');
        },
        { timeoutMs: 300, intervalMs: 50 },
      ),
      /^StartupError: stripe-mock did not become ready within 0.3 s: connection refused$/,
    );
  });
});
