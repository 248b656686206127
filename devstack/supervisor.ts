import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ensurePrivateDirectory, openPrivateLog } from './private-files.ts';

/** Something the stack started and must stop again: a child process or an in-process server. */
export interface RunningService {
  name: string;
  stop(): Promise<void>;
}

export class StartupError extends Error {
  override name = 'StartupError';
}

/**
 * Owns every service a stack started: stops them in reverse order on demand, on Ctrl-C, and
 * when one of them dies, so that nothing is left running behind the command.
 */
export class Supervisor {
  readonly #services: RunningService[] = [];
  #stopping: Promise<void> | undefined;
  #onUnexpectedExit: (service: string, code: number | null) => void;

  constructor(onUnexpectedExit: (service: string, code: number | null) => void) {
    this.#onUnexpectedExit = onUnexpectedExit;
  }

  get stopping(): boolean {
    return this.#stopping !== undefined;
  }

  add(service: RunningService): void {
    this.#services.push(service);
  }

  /** Spawns a child whose output goes to `logFile`; an exit we did not ask for stops the stack. */
  spawn(options: {
    name: string;
    command: string;
    args: string[];
    logFile: string;
    env?: NodeJS.ProcessEnv;
    cwd?: string;
    /** Run as another user, for servers that refuse root (PostgreSQL). */
    user?: { uid: number; gid: number };
    stopSignal?: NodeJS.Signals;
  }): ChildProcess {
    ensurePrivateDirectory(dirname(options.logFile));
    const log = openPrivateLog(options.logFile);
    const child = spawn(options.command, options.args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', log, log],
      // Its own process group: a terminal's Ctrl-C reaches only us, and we stop children in order.
      detached: true,
      ...options.user,
    });
    child.on('error', (error) => {
      if (!this.stopping) this.#onUnexpectedExit(`${options.name} (${error.message})`, null);
    });
    child.on('exit', (code) => {
      if (!this.stopping) this.#onUnexpectedExit(options.name, code);
    });
    // A synchronous last resort: if this process exits without stopping the stack, kill the child.
    const killOnExit = () => child.kill('SIGKILL');
    process.once('exit', killOnExit);
    this.add({
      name: options.name,
      stop: async () => {
        process.off('exit', killOnExit);
        await stopChild(child, options.stopSignal ?? 'SIGTERM');
      },
    });
    return child;
  }

  stopAll(): Promise<void> {
    this.#stopping ??= (async () => {
      for (const service of [...this.#services].reverse()) {
        await service.stop().catch(() => undefined);
      }
    })();
    return this.#stopping;
  }
}

async function stopChild(child: ChildProcess, signal: NodeJS.Signals, graceMs = 10_000) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  const stoppedInTime = await Promise.race([
    exited.then(() => true),
    sleep(graceMs, false, { ref: false }),
  ]);
  if (!stoppedInTime) {
    child.kill('SIGKILL');
    await exited;
  }
}

/** Polls `check` until it answers true; readiness is awaited, never slept. */
export async function waitUntilReady(
  what: string,
  check: () => Promise<boolean>,
  { timeoutMs = 60_000, intervalMs = 100 } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      if (await check()) return;
    } catch (error) {
      lastError = error;
    }
    await sleep(intervalMs);
  }
  const reason = lastError instanceof Error ? `: ${lastError.message}` : '';
  throw new StartupError(`${what} did not become ready within ${timeoutMs / 1000} s${reason}`);
}

/** Fails with the port number when something already listens there. */
export async function assertPortFree(port: number, host: string, purpose: string): Promise<void> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      const message =
        error.code === 'EADDRINUSE'
          ? `Port ${port} (${purpose}) is already in use on ${host}; stop what holds it or choose another port`
          : `Cannot listen on ${host}:${port} (${purpose}): ${error.message}`;
      reject(new StartupError(message));
    });
    server.listen(port, host, () => server.close(() => resolve()));
  });
}

/** A port the operating system considers free right now, for services started by tests. */
export async function findFreePort(host = '127.0.0.1'): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}
