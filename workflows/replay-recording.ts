import { type Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { workflowsPath } from '../temporal/workflow-bundle.ts';

/**
 * The Temporal payload keys recordings run with, as TOLLGATE_PAYLOAD_KEYS: histories are
 * recorded encrypted, as production writes them, and the replay test decrypts them with this.
 * Published on purpose: recordings hold nothing secret.
 */
export const replayPayloadKeys = 'replay:MoVXGxicOMJc/YzU0QK1tlDI3DtH/vmvW4OLudG0T/Q=';

/** The workers a recording runs on: queues of its own, activities that need no services. */
export interface RecordingWorkers {
  /** The queue its workflow runs on, polled by a worker with every workflow and `activities`. */
  taskQueue: string;
  activities: object;
  /** Queues of activities alone (as webhook deliveries have), each polled by its own worker. */
  activityQueues?: Record<string, object>;
}

/**
 * Runs `scenario` while workers of its own poll the recording's queues, so that a replay
 * scenario is recorded without database, third parties or the test run's worker process;
 * resolves once `scenario` did (it awaits its workflow's result).
 */
export async function recordOnOwnWorkers(
  client: Client,
  { taskQueue, activities, activityQueues = {} }: RecordingWorkers,
  scenario: () => Promise<unknown>,
): Promise<void> {
  if (!(client.connection instanceof Connection)) throw new Error('a client over a Connection');
  const connection = await NativeConnection.connect({ address: client.connection.options.address });
  try {
    const { namespace } = client.options;
    // The workers read and write payloads as the client does (encrypted, or not).
    const dataConverter = { payloadCodecs: client.options.loadedDataConverter.payloadCodecs };
    const workflowWorker = await Worker.create({
      connection,
      namespace,
      taskQueue,
      workflowsPath,
      dataConverter,
      activities,
    });
    const activityWorkers = await Promise.all(
      Object.entries(activityQueues).map(([queue, queueActivities]) =>
        Worker.create({
          connection,
          namespace,
          taskQueue: queue,
          dataConverter,
          activities: queueActivities,
        }),
      ),
    );
    let running = workflowWorker.runUntil(scenario);
    for (const activityWorker of activityWorkers) running = activityWorker.runUntil(running);
    await running;
  } finally {
    await connection.close();
  }
}
