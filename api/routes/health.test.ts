import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadRuntimeConfig } from '../../config/env.ts';
import { findFreePort } from '../../devstack/supervisor.ts';
import { startApiServer } from '../server.ts';
import { startTestApi } from '../testing.ts';

interface Readiness {
  status: string;
  checks: { name: string; ok: boolean; latencyMs: number; detail: string }[];
}

describe('readiness', () => {
  let api: Awaited<ReturnType<typeof startTestApi>>;
  before(async () => {
    api = await startTestApi();
  });
  after(() => api.close());

  it('is ready when the database, Temporal and Stripe all answer', async () => {
    const response = await fetch(`${api.url}/api/health/ready`);
    const body = (await response.json()) as Readiness;
    assert.equal(response.status, 200);
    assert.equal(body.status, 'ready');
    assert.deepEqual(
      body.checks.map(({ name, ok }) => ({ name, ok })),
      [
        { name: 'database', ok: true },
        { name: 'temporal', ok: true },
        { name: 'stripe', ok: true },
      ],
    );
  });

  it('is degraded, with the failing service named, when Stripe is unreachable', async () => {
    const config = loadRuntimeConfig();
    const closedPort = await findFreePort();
    const broken = await startApiServer(
      { ...config, stripe: { ...config.stripe, apiBase: `http://127.0.0.1:${closedPort}` } },
      { host: '127.0.0.1', port: 0 },
    );
    try {
      const response = await fetch(`${broken.url}/api/health/ready`);
      const body = (await response.json()) as Readiness;
      assert.equal(response.status, 503);
      assert.equal(body.status, 'degraded');
      const stripe = body.checks.find((check) => check.name === 'stripe');
      assert.equal(stripe?.ok, false);
      assert.ok(body.checks.filter((check) => check.name !== 'stripe').every((check) => check.ok));
    } finally {
      await broken.close();
    }
  });

  it('tells the dashboard where the Temporal Web UI is', async () => {
    const response = await fetch(`${api.url}/api/health/info`);
    const body = (await response.json()) as { temporalUiUrl: string | null; version: string };
    assert.equal(response.status, 200);
    assert.equal(body.temporalUiUrl, process.env.TEMPORAL_UI_URL ?? null);
    assert.match(body.version, /^\d+\.\d+\.\d+/);
  });
});
