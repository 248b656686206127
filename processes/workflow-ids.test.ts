import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as workflows from '../workflows/index.ts';
import { workflowTypes } from './workflow-ids.ts';

describe('workflow type names', () => {
  it('name every workflow the worker registers, as its function is named', () => {
    assert.deepEqual(Object.keys(workflowTypes).sort(), Object.keys(workflows).sort());
    for (const [key, workflow] of Object.entries(workflows)) {
      assert.equal(workflowTypes[key as keyof typeof workflowTypes], workflow.name);
    }
  });
});
