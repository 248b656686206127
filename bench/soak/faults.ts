import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { startEmbeddedPostgres } from '../../devstack/postgres.ts';
import { Supervisor } from '../../devstack/supervisor.ts';
import { startTemporalDevServer, type TemporalDevServerOptions } from '../../devstack/temporal.ts';

/**
 * The soak's process faults: SIGKILL of a process (and its group), and the parts of its stack
 * (bench/soak/stack.ts) that come back after one on the same address with the same data — the
 * Temporal dev server on its persisted SQLite file, the embedded PostgreSQL on its data folder
 * (stopped with its fast shutdown), the API and worker pools — as systemd or compose would
 * restart them.
 */

/** Whether `pid` still runs (a zombie waiting for its parent counts as gone). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Resolves once `pid` is gone; fails after `timeoutMs`. */
export async function waitUntilGone(pid: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (isRunning(pid)) {
    if (Date.now() > deadline) throw new Error(`process ${pid} still runs after ${timeoutMs} ms`);
    await sleep(20);
  }
}

/** The processes whose parent is `pid` (a pool's copies). */
export function childProcessesOf(pid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === pid) found.push(Number(entry));
    } catch {
      // Ended while we read.
    }
  }
  return found;
}

/**
 * SIGKILLs `pid` and, with `group` (the default), the process group it leads (the Supervisor
 * starts each child as one: a pool's copies, the Temporal CLI's server go with it), and its
 * direct children. Resolves once every one of them is gone.
 */
export async function killProcess(pid: number, { group = true } = {}): Promise<void> {
  const victims = [pid, ...childProcessesOf(pid)];
  try {
    process.kill(group ? -pid : pid, 'SIGKILL');
  } catch {
    // Not a group leader (or gone): the process alone.
    if (isRunning(pid)) process.kill(pid, 'SIGKILL');
  }
  for (const child of victims.slice(1)) {
    if (isRunning(child)) process.kill(child, 'SIGKILL');
  }
  await Promise.all(victims.map((victim) => waitUntilGone(victim)));
}

/** A part of the stack the soak kills or stops and starts again, on the same address with the same data. */
export interface RestartableService {
  name: string;
  /** Where it listens, the same after every restart (undefined for a part that only connects out). */
  address: string | undefined;
  /** Its main process now; undefined while it is down. */
  pid(): number | undefined;
  /**
   * SIGKILL of the whole group, resolved once gone; with `copy`, of one process of its pool
   * only (its primary then stops the rest and exits), resolved once the primary is gone too.
   */
  kill(options?: { copy?: boolean }): Promise<void>;
  /** Its own shutdown signal (PostgreSQL's is the fast shutdown), resolved once stopped. */
  stop(): Promise<void>;
  /**
   * Starts it again after a kill, a stop or its own exit (stopping it first, gracefully, if it
   * runs); tried three times, a port still held by a dying process being the usual hitch.
   */
  restart(): Promise<void>;
  /** Exits nobody asked for, since it started. */
  unexpectedExits(): number;
}

/**
 * Runs a part that `start` starts under the supervisor it is given (one per incarnation, so
 * stopping one stops nothing else) and answers its address, if it has one; restarting it must
 * give the same. `onUnexpectedExit` hears of every exit nobody asked for.
 */
export async function startRestartable(
  name: string,
  start: (supervisor: Supervisor) => Promise<string | undefined>,
  { onUnexpectedExit = (_code: number | null) => {}, retryDelayMs = 2000 } = {},
): Promise<RestartableService> {
  let supervisor: Supervisor | undefined;
  let pid: number | undefined;
  let expectingExit = false;
  let unexpected = 0;
  const incarnation = async () => {
    expectingExit = false;
    const own = new Supervisor((_service, code) => {
      pid = undefined;
      if (expectingExit) return;
      unexpected += 1;
      onUnexpectedExit(code);
    });
    const spawn = own.spawn.bind(own);
    own.spawn = (options) => {
      const child = spawn(options);
      pid = child.pid;
      return child;
    };
    supervisor = own;
    try {
      return await start(own);
    } catch (error) {
      expectingExit = true;
      await own.stopAll();
      throw error;
    }
  };
  const address = await incarnation();
  const stop = async () => {
    expectingExit = true;
    await supervisor?.stopAll();
    pid = undefined;
  };
  return {
    name,
    address,
    pid: () => pid,
    async kill({ copy = false } = {}) {
      const primary = pid;
      if (primary === undefined) return;
      expectingExit = true;
      if (copy) {
        const copies = childProcessesOf(primary);
        const victim = copies[Math.floor(Math.random() * copies.length)];
        if (victim) await killProcess(victim, { group: false });
        await waitUntilGone(primary, 30_000);
      } else {
        await killProcess(primary);
      }
      pid = undefined;
    },
    stop,
    async restart() {
      for (let attempt = 1; ; attempt++) {
        await stop();
        try {
          const again = await incarnation();
          if (again !== address) {
            throw new Error(`${name} came back on ${again}, not on ${address}`);
          }
          return;
        } catch (error) {
          if (attempt >= 3) throw error;
          await sleep(retryDelayMs);
        }
      }
    },
    unexpectedExits: () => unexpected,
  };
}

/** The Temporal dev server on its SQLite file: its workflows outlive each restart. */
export function startRestartableTemporal(
  binary: string,
  options: TemporalDevServerOptions & { databaseFile: string },
  events?: { onUnexpectedExit?: (code: number | null) => void },
): Promise<RestartableService> {
  return startRestartable(
    'temporal',
    (supervisor) => startTemporalDevServer(supervisor, binary, options),
    events,
  );
}

/**
 * The embedded PostgreSQL on its data folder, `database` made on first start: answers the
 * database's URL. `stop` (and `restart`) is PostgreSQL's fast shutdown: clients disconnected,
 * transactions in flight rolled back, the data flushed.
 */
export function startRestartablePostgres(
  options: { directory: string; port: number; database: string; logFile: string },
  events?: { onUnexpectedExit?: (code: number | null) => void },
): Promise<RestartableService> {
  return startRestartable(
    'postgres',
    (supervisor) => startEmbeddedPostgres(supervisor, options),
    events,
  );
}
