import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, it } from 'node:test';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { parsePayloadKeys } from '../config/env.ts';
import { encryptedEncoding, temporalDataConverter } from '../temporal/payload-codec.ts';
import { workflowsPath } from '../temporal/workflow-bundle.ts';
import { replayPayloadKeys } from './replay-recording.ts';
import { replayScenarios } from './replay-scenarios.ts';

// Replay workers log every state change at INFO; only problems are worth a test log line.
Runtime.install({ logger: new DefaultLogger('WARN') });

const fixtures = join(import.meta.dirname, '__fixtures__');
const historiesDir = join(fixtures, 'histories');

function recordedHistories() {
  return readdirSync(historiesDir)
    .filter((file) => file.endsWith('.json'))
    .map((file) => ({
      workflowId: basename(file, '.json'),
      history: JSON.parse(readFileSync(join(historiesDir, file), 'utf8')),
    }));
}

// As the worker process reads histories: payloads encrypted by the codec are decrypted, those
// recorded before it pass through.
const dataConverter = temporalDataConverter(parsePayloadKeys(replayPayloadKeys) ?? undefined);

async function replay(path: string, histories: ReturnType<typeof recordedHistories>) {
  const failures: Record<string, string> = {};
  const options = { workflowsPath: path, dataConverter };
  for await (const result of Worker.runReplayHistories(options, histories)) {
    if (result.error) failures[result.workflowId] = `${result.error.name}: ${result.error.message}`;
  }
  return failures;
}

describe('workflow replay', () => {
  it('has a recorded history for every replay scenario', () => {
    const recorded = recordedHistories().map(({ workflowId }) => workflowId);
    assert.deepEqual(recorded.sort(), Object.keys(replayScenarios).sort());
  });

  it('has histories recorded with encrypted payloads, as production writes them', () => {
    const encrypted = recordedHistories().find(
      ({ workflowId }) => workflowId === 'send-email-encrypted',
    );
    const encoding = Buffer.from(encryptedEncoding).toString('base64');
    assert.ok(JSON.stringify(encrypted?.history).includes(encoding));
  });

  it('replays every recorded history against the current workflow code', async () => {
    assert.deepEqual(await replay(workflowsPath, recordedHistories()), {});
  });

  it('fails on a workflow change that running workflows could not survive', async () => {
    const histories = recordedHistories().filter(
      ({ workflowId }) => workflowId === 'purge-expired-records',
    );
    const failures = await replay(join(fixtures, 'nondeterministic', 'index.ts'), histories);
    assert.match(failures['purge-expired-records'] ?? '', /DeterminismViolation|Nondeterminism/i);
  });
});
