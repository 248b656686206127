import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, it } from 'node:test';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { workflowsPath } from '../temporal/worker.ts';
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

async function replay(path: string, histories: ReturnType<typeof recordedHistories>) {
  const failures: Record<string, string> = {};
  for await (const result of Worker.runReplayHistories({ workflowsPath: path }, histories)) {
    if (result.error) failures[result.workflowId] = `${result.error.name}: ${result.error.message}`;
  }
  return failures;
}

describe('workflow replay', () => {
  it('has a recorded history for every replay scenario', () => {
    const recorded = recordedHistories().map(({ workflowId }) => workflowId);
    assert.deepEqual(recorded.sort(), Object.keys(replayScenarios).sort());
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
