import cluster, { type Worker } from 'node:cluster';

/**
 * The primary of a pool of copies of this process (node's cluster module), for the API and the
 * worker. It only supervises: when a copy dies unasked it stops the others (SIGTERM, so that they
 * finish what they hold) and exits 1, and whatever supervises the service (docker compose's
 * restart policy, systemd, `npm start` stopping the stack) restarts it whole and cleanly. SIGINT
 * and SIGTERM are passed on to every copy, which stops itself gracefully; a copy that has not
 * stopped within its grace period is killed, and the primary then exits 1 as well.
 */
/** How long a copy has to stop after SIGINT or SIGTERM (within the 10 s devstack/supervisor.ts allows the primary). */
export const stopGraceMs = 8_000;

export function processPool(name: string): { fork(env?: Record<string, string>): Worker } {
  let stopping = false;
  /** The signal the copies were sent to stop. */
  let stopSignal: NodeJS.Signals | undefined;
  const signalAll = (signal: NodeJS.Signals) => {
    stopSignal = signal;
    // The signal itself, not `worker.kill()`: that first cuts the IPC channel, on which a copy
    // exits at once instead of finishing its requests or workflow tasks.
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
    // As a supervisor would: what has not stopped after its grace period is killed.
    setTimeout(() => {
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL');
    }, stopGraceMs).unref();
  };
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      // Asked to stop, a copy exits 0 by itself (or dies of the signal, when it came before
      // the copy had started); anything else (killed after its grace period, failed while
      // stopping) is the pool's failure too, for whoever stopped it to see.
      if (code !== 0 && signal !== stopSignal) {
        console.error(`${name} process ${worker.process.pid} stopped with ${code ?? signal}`);
        process.exitCode = 1;
      }
      return;
    }
    console.error(`${name} process ${worker.process.pid} exited with ${code ?? signal}; stopping`);
    process.exitCode = 1;
    stopping = true;
    signalAll('SIGTERM');
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      stopping = true;
      signalAll(signal);
    });
  }
  return { fork: (env) => cluster.fork(env) };
}

/** How long a stopped process may take to exit by itself before `exitOnceStopped` makes it. */
const exitGraceMs = 1_000;

/**
 * Called by a process (a copy of a pool or a process alone) once it has stopped its work and
 * closed what it opened: it then exits by itself, with its exit code, as nothing keeps its event
 * loop alive. A copy must first let go of its IPC channel to the primary, which cluster keeps
 * referenced (it listens for the primary's disconnect) and would otherwise hold the copy until
 * the primary kills it. Should anything else still hold the loop (a socket or timer left open),
 * `report` is told what (Node's names of the active resources) and the process exits anyway.
 */
export function exitOnceStopped(report: (activeResources: string[]) => void): void {
  if (cluster.isWorker && cluster.worker?.isConnected()) cluster.worker.disconnect();
  setTimeout(() => {
    report(process.getActiveResourcesInfo());
    process.exit();
  }, exitGraceMs).unref();
}
