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

  /** The bundle's file: on this writable tree it is always kept. */
  const bundleFile = async (options: Parameters<typeof cachedWorkflowBundle>[0]) => {
    const bundle = await cachedWorkflowBundle(options);
    assert.ok('codePath' in bundle);
    return bundle.codePath;
  };

  it('is made once per version of the code and found again while the code is unchanged', async () => {
    writeFileSync(greeting, "export const greeting = 'hello from the first version';\n");
    const first = await bundleFile({ entry });
    assert.match(readFileSync(first, 'utf8'), /hello from the first version/);
    assert.equal(await bundleFile({ entry }), first);

    // A module the entry imports changes: a new bundle, holding the new code.
    writeFileSync(greeting, "export const greeting = 'hello from the second version';\n");
    const second = await bundleFile({ entry });
    assert.notEqual(second, first);
    assert.match(readFileSync(second, 'utf8'), /hello from the second version/);
    for (const file of [first, second]) rmSync(file);
  });

  it('keeps a bundle with interceptor modules (tracing) apart from the one without', async () => {
    writeFileSync(greeting, "export const greeting = 'traced or not';\n");
    const interceptorModule = join(directory, 'interceptors.ts');
    writeFileSync(
      interceptorModule,
      'export const interceptors = () => ({ inbound: [], outbound: [], internals: [] });\n',
    );
    const plain = await bundleFile({ entry });
    const traced = await bundleFile({ entry, interceptorModules: [interceptorModule] });
    assert.notEqual(traced, plain);
    assert.doesNotMatch(readFileSync(plain, 'utf8'), /interceptors\.ts/);
    assert.match(readFileSync(traced, 'utf8'), /interceptors\.ts/);
    for (const file of [plain, traced]) rmSync(file);
  });
});
