import cluster, { type Worker } from 'node:cluster';

/**
 * The primary of a pool of copies of this process (node's cluster module), for the API and the
 * worker. It only supervises: when a copy dies unasked it stops the others (SIGTERM, so that they
 * finish what they hold) and exits 1, and whatever supervises the service (docker compose's
 * restart policy, systemd, `npm start` stopping the stack) restarts it whole and cleanly. SIGINT
 * and SIGTERM are passed on to every copy, which stops itself gracefully.
 */
/** How long a copy has to stop after SIGINT or SIGTERM (within the 10 s devstack/supervisor.ts allows the primary). */
const stopGraceMs = 8_000;

export function processPool(name: string): { fork(env?: Record<string, string>): Worker } {
  let stopping = false;
  const signalAll = (signal: NodeJS.Signals) => {
    // The signal itself, not `worker.kill()`: that first cuts the IPC channel, on which a copy
    // exits at once instead of finishing its requests or workflow tasks.
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
    // As a supervisor would: what has not stopped after its grace period is killed.
    setTimeout(() => {
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL');
    }, stopGraceMs).unref();
  };
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
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
