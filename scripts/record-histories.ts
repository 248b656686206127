/**
 * `npm run record-histories`: runs every replay scenario on a fresh test stack and writes each
 * workflow's event history to workflows/__fixtures__/histories, where the replay test reads it.
 * Only scenarios without a recorded history are run.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { startTestStack } from '../devstack/test-stack.ts';
import { connectTemporal } from '../temporal/client.ts';
import { replayPayloadKeys } from '../workflows/replay-recording.ts';
import { replayScenarios } from '../workflows/replay-scenarios.ts';

const historiesDir = join(import.meta.dirname, '..', 'workflows', '__fixtures__', 'histories');
const stack = await startTestStack((line) => console.log(`[record] ${line}`), {
  payloadKeys: replayPayloadKeys,
});
try {
  const client = await connectTemporal({
    ...stack.config.temporal,
    address: stack.addresses.temporalAddress,
  });
  for (const [name, run] of Object.entries(replayScenarios)) {
    const file = join(historiesDir, `${name}.json`);
    // A recorded history stands for workflows already running in production: never overwrite it.
    if (existsSync(file)) continue;
    const recorded = await run(client);
    const { workflowId, runId } =
      typeof recorded === 'string' ? { workflowId: recorded, runId: undefined } : recorded;
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    writeFileSync(file, `${historyToJSON(history)}\n`);
    console.log(`[record] ${name}: ${history.events?.length ?? 0} events`);
  }
  await client.connection.close();
} finally {
  await stack.stop();
}
