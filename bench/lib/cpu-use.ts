import { cpus } from 'node:os';
import type { Orm } from '../../db/orm.ts';
import { coresBusy, cpuMsPerOperation, machineCpu, processCpu } from './process-cpu.ts';

/** The CPU one measured load phase cost, from /proc: deterministic where wall-clock figures are not. */
export interface CpuUse {
  /** CPU milliseconds per operation of each process of the run, the load generator's included. */
  msPerOperation: Record<string, number>;
  /** Share of the machine's cores busy during the phase, work outside the run included. */
  machineBusy: number;
  /** Cores the run's own processes kept busy, the load generator's included. */
  runCoresBusy: number;
  cores: number;
}

/**
 * Starts accounting one measured phase: each process of the run (processCpu: API processes, the
 * PostgreSQL backends `postgresPids` answers, …) and the machine's busy ticks (/proc/stat).
 * `stop` takes the phase's operations and the load generator's CPU, which the generator reports
 * itself (LoadSummary.cpuMs): it has exited, out of /proc, by then. The window opens before the
 * generator's Node start-up (a few tenths of a second with little load): the busy shares of a
 * short run read a little low; the CPU ms per operation do not.
 */
export async function startCpuUse(postgresPids: () => Promise<number[]>) {
  const before = processCpu(await postgresPids());
  const machineBefore = machineCpu();
  const started = performance.now();
  return {
    stop: async (operations: number, loadGeneratorCpuMs = 0): Promise<CpuUse> => {
      const after = processCpu(await postgresPids());
      const machineAfter = machineCpu();
      const seconds = (performance.now() - started) / 1000;
      const runCoresBusy =
        Object.values(coresBusy(before, after, seconds)).reduce((sum, cores) => sum + cores, 0) +
        loadGeneratorCpuMs / 1000 / seconds;
      const msPerOperation = cpuMsPerOperation(before, after, operations);
      if (loadGeneratorCpuMs > 0) {
        msPerOperation['load generator'] = Number((loadGeneratorCpuMs / operations).toFixed(2));
      }
      const machineBusy =
        (machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total);
      return { msPerOperation, machineBusy, runCoresBusy, cores: cpus().length };
    },
  };
}

/** The PostgreSQL backends serving `database` (the ORM's own when omitted), for their CPU. */
export const postgresBackends = (orm: Orm, database?: string) => async () =>
  (
    await orm.em
      .getConnection()
      .execute<{ pid: number }[]>(
        'select pid from pg_stat_activity where datname = coalesce(?, current_database())',
        [database ?? null],
      )
  ).map((row) => row.pid);

/**
 * CPU ms per operation of the processes that serve it: the API, the worker, the Temporal dev
 * server and PostgreSQL (its backends and its own processes); the bench and its load apart.
 */
export const serverMsPerOperation = (
  use: CpuUse,
  server = /^(API|worker|Temporal dev server|PostgreSQL)/,
) =>
  Object.entries(use.msPerOperation)
    .filter(([name]) => server.test(name))
    .reduce((sum, [, ms]) => sum + ms, 0);

/** A machine this busy runs at its CPU's limit: latency beyond that is waiting for a core. */
export const cpuBound = (use: CpuUse) => use.machineBusy >= 0.9;

/** Rows for console.table: each phase's CPU ms per operation by process, and the machine's share. */
export function cpuTable(uses: Record<string, CpuUse>) {
  return Object.fromEntries(
    Object.entries(uses).map(([phase, use]) => [
      phase,
      {
        ...use.msPerOperation,
        'the run busy (cores)': Number(use.runCoresBusy.toFixed(2)),
        [`machine busy (of ${use.cores} cores)`]: `${Math.round(use.machineBusy * 100)} %`,
      },
    ]),
  );
}
