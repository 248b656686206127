import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { projectRoot } from '../config/env.ts';
import { cachedWorkflowBundle } from './workflow-bundle.ts';

describe('the cached workflow bundle', () => {
  // Under the project root, so that webpack finds @temporalio/workflow in node_modules.
  const directory = join(projectRoot, '.data', `bundle-test-${process.pid}`);
  mkdirSync(directory, { recursive: true });
  after(() => rmSync(directory, { recursive: true, force: true }));
  const entry = join(directory, 'workflows.ts');
  const greeting = join(directory, 'greeting.ts');
  writeFileSync(
    entry,
    "import { greeting } from './greeting.ts';\nexport async function greet() { return greeting; }\n",
  );

  it('is made once per version of the code and found again while the code is unchanged', async () => {
    writeFileSync(greeting, "export const greeting = 'hello from the first version';\n");
    const first = await cachedWorkflowBundle({ entry });
    assert.match(readFileSync(first.codePath, 'utf8'), /hello from the first version/);
    assert.deepEqual(await cachedWorkflowBundle({ entry }), first);

    // A module the entry imports changes: a new bundle, holding the new code.
    writeFileSync(greeting, "export const greeting = 'hello from the second version';\n");
    const second = await cachedWorkflowBundle({ entry });
    assert.notEqual(second.codePath, first.codePath);
    assert.match(readFileSync(second.codePath, 'utf8'), /hello from the second version/);
    for (const { codePath } of [first, second]) rmSync(codePath);
  });

  it('keeps a bundle with interceptor modules (tracing) apart from the one without', async () => {
    writeFileSync(greeting, "export const greeting = 'traced or not';\n");
    const interceptorModule = join(directory, 'interceptors.ts');
    writeFileSync(
      interceptorModule,
      'export const interceptors = () => ({ inbound: [], outbound: [], internals: [] });\n',
    );
    const plain = await cachedWorkflowBundle({ entry });
    const traced = await cachedWorkflowBundle({ entry, interceptorModules: [interceptorModule] });
    assert.notEqual(traced.codePath, plain.codePath);
    assert.doesNotMatch(readFileSync(plain.codePath, 'utf8'), /interceptors\.ts/);
    assert.match(readFileSync(traced.codePath, 'utf8'), /interceptors\.ts/);
    for (const { codePath } of [plain, traced]) rmSync(codePath);
  });
});
