import { createAccessToken } from '../../commerce/access-tokens/service.ts';
import { Member, Organization, User } from '../../db/entities/index.ts';
import { openOrm } from '../../db/orm.ts';
import { startApiProcess } from '../../devstack/app-processes.ts';
import { eventually } from '../../devstack/eventually.ts';
import { findFreePort, type RunningService, Supervisor } from '../../devstack/supervisor.ts';
import { workflowPollers } from '../../devstack/temporal.ts';
import { startTestStack, startTestWorker, type TestStack } from '../../devstack/test-stack.ts';
import { allScopes } from '../../domain/scopes.ts';
import { taskQueues } from '../../temporal/task-queues.ts';
import { childProcessesOf, type RestartableService, startRestartable } from '../soak/faults.ts';
import { type CpuUse, startCpuUse } from './cpu-use.ts';
import { type LoadOptions, type LoadSummary, runLoad } from './run-load.ts';

/**
 * What a benchmark run starts (the test stack, an API process) and its clean-up on success,
 * failure, Ctrl-C or running out of its time budget.
 */
export function benchRun(name: string, budgetSeconds: number) {
  const say = (line: string) => console.log(`[bench:${name}] ${line}`);
  let crashed: string | undefined;
  const processes = new Supervisor((service, code) => {
    crashed = `${service} exited unexpectedly (code ${code})`;
    say(crashed);
  });
  let stackStarting: Promise<TestStack> | undefined;
  /** The worker pool the run runs itself (startStack's `restartableWorker`), for killWorker. */
  let worker: { service: RestartableService; stack: TestStack; copies: number } | undefined;
  const closers: (() => Promise<unknown>)[] = [];
  /** Aborted on clean-up: kills a running load generator. */
  const loadAbort = new AbortController();
  const failIfCrashed = () => {
    if (crashed) throw new Error(crashed);
  };
  let cleaningUp: Promise<void> | undefined;
  const cleanUp = () => {
    cleaningUp ??= (async () => {
      loadAbort.abort();
      for (const close of closers) await close().catch(() => undefined);
      // Our processes (the API, and what was spawned or added) before the stack they use.
      await processes.stopAll();
      await stackStarting?.then((stack) => stack.stop()).catch(() => undefined);
    })();
    return cleaningUp;
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void cleanUp().then(() => process.exit(130)));
  }
  setTimeout(() => {
    say(`gave up after ${budgetSeconds} s`);
    void cleanUp().then(() => process.exit(1));
  }, budgetSeconds * 1000).unref();

  type Timing = { warmupSeconds: number; durationSeconds: number };
  const measureWith = async (
    label: string,
    load: Omit<LoadOptions, 'durationSeconds'>,
    { warmupSeconds, durationSeconds }: Timing,
    postgresPids?: () => Promise<number[]>,
  ): Promise<{ summary: LoadSummary; cpu?: CpuUse }> => {
    say(`${label}: warm-up ${warmupSeconds} s, then ${durationSeconds} s at ${load.connections}`);
    await runLoad(
      `${label} (warm-up)`,
      { ...load, durationSeconds: warmupSeconds },
      { warmUp: true, signal: loadAbort.signal },
    );
    failIfCrashed();
    const cpuUse = postgresPids && (await startCpuUse(postgresPids));
    const summary = await runLoad(
      label,
      { ...load, durationSeconds },
      { signal: loadAbort.signal },
    );
    failIfCrashed();
    return { summary, cpu: await cpuUse?.stop(summary.requests, summary.cpuMs) };
  };

  return {
    say,
    loadAbort,
    cleanUp,
    failIfCrashed,
    /**
     * A warm-up of `warmupSeconds`, then the measured run of `durationSeconds`: its summary. A
     * crashed process fails the run after either.
     */
    measure: async (label: string, load: Omit<LoadOptions, 'durationSeconds'>, timing: Timing) =>
      (await measureWith(label, load, timing)).summary,
    /** As `measure`, with the CPU the measured run cost (cpu-use.ts) and the backends it counts. */
    measureWithCpu: (
      label: string,
      load: Omit<LoadOptions, 'durationSeconds'>,
      timing: Timing,
      postgresPids: () => Promise<number[]>,
    ) =>
      measureWith(label, load, timing, postgresPids) as Promise<{
        summary: LoadSummary;
        cpu: CpuUse;
      }>,
    /** Closed on clean-up, before the processes stop (database pools, Temporal clients). */
    closeOnCleanUp: (close: () => Promise<unknown>) => closers.push(close),
    /** Stopped on clean-up with the processes, in reverse order: after what is added later. */
    add: (service: RunningService) => processes.add(service),
    /** A child process of the run: stopped on clean-up, its unexpected exit fails the run. */
    spawn: (options: Parameters<Supervisor['spawn']>[0]) => processes.spawn(options),
    /**
     * The bench's seller, straight in the database: an organization named after the bench, its
     * owner, and an access token with every scope. The ORM stays open until clean-up.
     */
    seedSeller: async (databaseUrl: string) => {
      const orm = await openOrm(databaseUrl);
      closers.push(() => orm.close());
      const em = orm.em.fork();
      const owner = em.create(User, { email: `owner@${name}.bench`, name: `${name} owner` });
      const organization = em.create(Organization, {
        name: `${name} bench`,
        slug: `${name}-bench`,
      });
      em.create(Member, { organization, user: owner, role: 'owner' });
      await em.flush();
      const { token } = await createAccessToken(em, {
        organizationId: organization.id,
        comment: 'bench',
        scopes: allScopes,
      });
      return { orm, em, organizationId: organization.id, token };
    },
    /**
     * The test stack; with `restartableWorker`, its worker run by the run itself instead, as a
     * pool (TOLLGATE_WORKER_PROCESSES, 2 unless set) that killWorker kills and restarts.
     */
    startStack: async ({ restartableWorker = false } = {}) => {
      stackStarting = startTestStack(say, { worker: !restartableWorker });
      const stack = await stackStarting;
      if (!restartableWorker) return stack;
      process.env.TOLLGATE_WORKER_PROCESSES ??= '2';
      const copies = Number(process.env.TOLLGATE_WORKER_PROCESSES);
      if (!(copies >= 2)) throw new Error('a killed worker needs TOLLGATE_WORKER_PROCESSES >= 2');
      const service = await startRestartable(
        'worker',
        async (supervisor) => {
          await startTestWorker(supervisor, stack);
          return undefined;
        },
        {
          onUnexpectedExit: (code) => {
            crashed = `worker exited unexpectedly (code ${code})`;
            say(crashed);
          },
        },
      );
      worker = { service, stack, copies };
      processes.add({ name: 'worker', stop: () => service.stop() });
      return stack;
    },
    /**
     * SIGKILL of one process of the worker pool (its primary then stops the others and exits),
     * the pool started again at once: when, and the milliseconds from the kill until the pool
     * was gone and until every new copy polled the main task queue (by the pollers' identities,
     * `pid@host`: Temporal still lists the dead copies' pollers for a while).
     */
    killWorker: async () => {
      if (!worker) throw new Error('killWorker needs startStack({ restartableWorker: true })');
      const { service, stack, copies } = worker;
      const killedAt = Date.now();
      await service.kill({ copy: true });
      const goneMs = Date.now() - killedAt;
      await service.restart();
      await eventually(
        async () => {
          const primary = service.pid();
          const pids = primary === undefined ? [] : childProcessesOf(primary);
          const identities = await workflowPollers(
            stack.addresses.temporalAddress,
            stack.config.temporal.namespace,
            taskQueues.main,
          );
          return pids.filter((pid) => identities.some((id) => id.startsWith(`${pid}@`))).length;
        },
        (polling) => polling === copies,
        { timeoutMs: 120_000, intervalMs: 100, what: 'every copy of the new worker polling' },
      );
      const upMs = Date.now() - killedAt;
      say(`worker copy SIGKILLed; pool gone after ${goneMs} ms, new pool polling after ${upMs} ms`);
      return { killedAt: new Date(killedAt).toISOString(), poolGoneMs: goneMs, restartMs: upMs };
    },
    /** The API in its own process on a free port, quiet, with auth rate limits off. */
    startApi: async (stack: TestStack, logFile: string, env: Record<string, string> = {}) => {
      const port = await findFreePort();
      const url = `http://127.0.0.1:${port}`;
      await startApiProcess(processes, stack.addresses, {
        env: {
          ...process.env,
          ...stack.env,
          NODE_ENV: 'test',
          LOG_LEVEL: 'warn',
          TOLLGATE_API_HOST: '127.0.0.1',
          TOLLGATE_API_PORT: String(port),
          TOLLGATE_PUBLIC_URL: url,
          TOLLGATE_AUTH_RATE_LIMIT: 'off',
          ...env,
        },
        url,
        logFile,
      });
      return url;
    },
  };
}
