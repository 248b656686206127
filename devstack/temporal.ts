import { Connection } from '@temporalio/client';
import { StartupError, type Supervisor, waitUntilReady } from './supervisor.ts';

/** Answers true once the frontend service reports itself serving. */
export async function temporalServing(address: string): Promise<boolean> {
  const connection = await Connection.connect({ address, connectTimeout: 2000 });
  try {
    const { status } = await connection.healthService.check({});
    return status === 1; // SERVING
  } finally {
    await connection.close();
  }
}

export interface TemporalDevServerOptions {
  port: number;
  /** Web UI port; undefined runs the server headless. */
  uiPort: number | undefined;
  /** SQLite file that keeps workflows across restarts; undefined keeps them in memory. */
  databaseFile: string | undefined;
  logFile: string;
}

/** Runs `temporal server start-dev` from the Temporal CLI binary and answers its address. */
export async function startTemporalDevServer(
  supervisor: Supervisor,
  binary: string,
  options: TemporalDevServerOptions,
): Promise<string> {
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(options.port)];
  args.push('--log-format', 'json', '--log-level', 'warn');
  if (options.uiPort === undefined) args.push('--headless');
  else args.push('--ui-port', String(options.uiPort));
  if (options.databaseFile) args.push('--db-filename', options.databaseFile);
  supervisor.spawn({ name: 'temporal', command: binary, args, logFile: options.logFile });
  const address = `127.0.0.1:${options.port}`;
  await waitUntilReady('Temporal dev server', () => temporalServing(address), {
    timeoutMs: 60_000,
    intervalMs: 250,
  });
  return address;
}

/**
 * Without a CLI binary and without Go, the Temporal SDK can download the dev server itself;
 * that needs the internet, so a failure says how to point Tollgate at a binary instead.
 */
export async function startDownloadedTemporalDevServer(
  supervisor: Supervisor,
  options: TemporalDevServerOptions,
): Promise<string> {
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  try {
    const environment = await TestWorkflowEnvironment.createLocal({
      server: {
        ip: '127.0.0.1',
        port: options.port,
        ui: options.uiPort !== undefined,
        uiPort: options.uiPort,
        dbFilename: options.databaseFile,
      },
    });
    supervisor.add({ name: 'temporal', stop: () => environment.teardown() });
    return environment.address;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new StartupError(
      `No Temporal CLI found and none could be downloaded (${reason}). Install the Temporal CLI ` +
        'and set TEMPORAL_CLI_PATH=/path/to/temporal, or install Go so Tollgate can build it',
    );
  }
}

/** Answers true once some worker polls the task queue for workflow tasks. */
export async function taskQueueHasWorker(
  address: string,
  namespace: string,
  taskQueue: string,
): Promise<boolean> {
  return (await workflowPollers(address, namespace, taskQueue)).length > 0;
}

/**
 * The identities (`pid@host`) of the workers polling the task queue for workflow tasks, as the
 * server lists them: a worker gone lately may still be among them.
 */
export async function workflowPollers(
  address: string,
  namespace: string,
  taskQueue: string,
): Promise<string[]> {
  const connection = await Connection.connect({ address, connectTimeout: 2000 });
  try {
    const { pollers } = await connection.workflowService.describeTaskQueue({
      namespace,
      taskQueue: { name: taskQueue },
      taskQueueType: 1, // TASK_QUEUE_TYPE_WORKFLOW
    });
    return pollers.map((poller) => poller.identity ?? '');
  } finally {
    await connection.close();
  }
}
