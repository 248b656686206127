import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { seedDemoData } from '../db/seed.ts';
import { seedDemoShop } from './demo.ts';
import { polarClient, startCommerceApi, type TestApi } from './testing.ts';

describe('the demo shop of npm start', () => {
  let api: TestApi;
  const folder = mkdtempSync(join(tmpdir(), 'tollgate-demo-'));

  before(async () => {
    api = await startCommerceApi();
  });
  after(async () => {
    await api.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('is made once, with a token that drives the Polar SDK', async () => {
    const publicUrl = api.config.api.publicUrl;
    await seedDemoData(api.orm);
    const tokenFile = join(folder, 'demo-access-token');
    await seedDemoShop(api.orm, { tokenFile, publicUrl });
    const again = join(folder, 'second-token');
    await seedDemoShop(api.orm, { tokenFile: again, publicUrl });
    assert.equal(existsSync(again), false, 'a second run changes nothing');

    const polar = polarClient(api.url, readFileSync(tokenFile, 'utf8').trim());
    const page = await polar.products.list({ sorting: ['name'] });
    assert.deepEqual(
      page.result.items.map((product) => [product.name, product.isRecurring]),
      [
        ['Lifetime license', false],
        ['Pro plan', true],
      ],
    );
  });
});
