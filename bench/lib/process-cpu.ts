import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** CPU time of processes from /proc, for the benchmarks' CPU accounting (Linux only). */

type ProcessTicks = Map<string, { pid: number; ticks: number }[]>;

/**
 * CPU time (clock ticks) burned so far by each process of the run, named by what it is: the
 * processes this bench started (the Stripe simulator runs inside the bench process itself) and
 * the PostgreSQL backends serving the bench's database, by pid.
 */
export const clockTicksPerSecond = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());
export function processCpu(postgresPids: number[]): ProcessTicks {
  const stats = new Map<number, { parent: number; ticks: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      stats.set(Number(entry), {
        parent: Number(fields[1]),
        ticks: Number(fields[11]) + Number(fields[12]),
      });
    } catch {
      // The process ended while we read.
    }
  }
  const descendsFromBench = (pid: number): boolean => {
    for (let at = pid; at > 1; at = stats.get(at)?.parent ?? 0) if (at === process.pid) return true;
    return false;
  };
  const nameOf = (pid: number) => {
    if (pid === process.pid) return 'bench process (Stripe simulator)';
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
    if (command.includes('stripe-mock')) return 'stripe-mock';
    if (command.includes('temporal/worker.ts')) return 'worker';
    if (command.includes('api/server.ts')) return 'API';
    if (command.includes('better-auth-server.ts')) return 'Better Auth server';
    if (/\btemporal\b.*server/.test(command)) return 'Temporal dev server';
    // An embedded PostgreSQL's own processes (WAL writer, checkpointer, …), its backends apart.
    if (/^postgres\b|\/postgres /.test(command)) return 'PostgreSQL (server processes)';
    return `other: ${command.slice(0, 40)}`;
  };
  const byName = new Map<string, { pid: number; ticks: number }[]>();
  const note = (name: string, pid: number, ticks: number) =>
    byName.set(name, [...(byName.get(name) ?? []), { pid, ticks }]);
  for (const [pid, { ticks }] of stats) {
    if (!descendsFromBench(pid) || postgresPids.includes(pid)) continue;
    try {
      note(nameOf(pid), pid, ticks);
    } catch {
      // Ended while we read.
    }
  }
  for (const pid of postgresPids) {
    const ticks = stats.get(pid)?.ticks;
    if (ticks !== undefined) note('PostgreSQL (the bench database)', pid, ticks);
  }
  return byName;
}

/** Busy and total clock ticks of the whole machine (every core), from /proc/stat. */
export function machineCpu() {
  const [, ...fields] = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').split(/\s+/);
  const ticks = fields.filter(Boolean).map(Number);
  const total = ticks.reduce((sum, value) => sum + value, 0);
  const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
  return { busy: total - idle, total };
}

/** Cores each process kept busy between two snapshots (a process new since the first counts whole). */
export function coresBusy(
  before: ProcessTicks,
  after: ProcessTicks,
  seconds: number,
): Record<string, number> {
  const busy: Record<string, number> = {};
  for (const [name, processes] of after) {
    const earlier = new Map((before.get(name) ?? []).map(({ pid, ticks }) => [pid, ticks]));
    const ticks = processes.reduce(
      (sum, { pid, ticks: now }) => sum + now - (earlier.get(pid) ?? 0),
      0,
    );
    busy[name] = Number((ticks / clockTicksPerSecond / seconds).toFixed(2));
  }
  return busy;
}

/**
 * CPU milliseconds each process spent per operation between two snapshots: robust on a busy
 * machine where wall-clock throughput is not (a process new since the first counts whole).
 */
export function cpuMsPerOperation(
  before: ProcessTicks,
  after: ProcessTicks,
  operations: number,
): Record<string, number> {
  const perOperation: Record<string, number> = {};
  for (const [name, processes] of after) {
    const earlier = new Map((before.get(name) ?? []).map(({ pid, ticks }) => [pid, ticks]));
    const ticks = processes.reduce(
      (sum, { pid, ticks: now }) => sum + now - (earlier.get(pid) ?? 0),
      0,
    );
    perOperation[name] = Number(((ticks * 1000) / clockTicksPerSecond / operations).toFixed(2));
  }
  return perOperation;
}
