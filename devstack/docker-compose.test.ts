import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { projectRoot } from '../config/env.ts';

interface ComposeService {
  image?: string;
  command?: string[];
  profiles?: string[];
  environment?: Record<string, string>;
  ports?: string[];
}

const composeFile = join(projectRoot, 'docker-compose.yml');
// No Compose client runs here, so the file is read as Compose would: YAML with merge keys (<<).
const compose = parse(readFileSync(composeFile, 'utf8'), { merge: true }) as {
  services: Record<string, ComposeService>;
};

describe('docker-compose.yml', () => {
  it('describes Temporal with its UI and database, the app database, API and worker', () => {
    for (const service of [
      'temporal',
      'temporal-ui',
      'temporal-db',
      'app-db',
      'migrate',
      'api',
      'worker',
    ]) {
      assert.ok(compose.services[service], `service ${service}`);
    }
  });

  it('runs the API, the worker and migrations from one image, each command a real file', () => {
    const roles = ['api', 'worker', 'migrate'].map((name) => compose.services[name]);
    assert.equal(new Set(roles.map((service) => service?.image)).size, 1);
    for (const service of roles) {
      // node, its flags if any, then the script and its arguments.
      const [runtime, ...rest] = service?.command ?? [];
      const entry = rest.find((argument) => !argument.startsWith('--'));
      assert.equal(runtime, 'node');
      assert.ok(entry && existsSync(join(projectRoot, entry)), `${entry} exists`);
    }
  });

  it('points the app at the compose services, not at embedded ones', () => {
    const env = compose.services.worker?.environment ?? {};
    assert.match(env.DATABASE_URL ?? '', /@app-db:5432\//);
    assert.equal(env.TEMPORAL_ADDRESS, 'temporal:7233');
    // Every variable the API and worker refuse to start without is passed through.
    for (const required of [
      'SMTP_URL',
      'TOLLGATE_AUTH_SECRET',
      'TOLLGATE_OPS_TOKEN',
      'TOLLGATE_PAYLOAD_KEYS',
    ]) {
      assert.ok(env[required], `${required} is set`);
    }
  });

  it('keeps the Temporal Web UI on this machine, read-only, decoding through the API', () => {
    const ui = compose.services['temporal-ui'];
    // Published ports are host:container or ip:host:container; a bare port listens everywhere.
    for (const port of ui?.ports ?? []) {
      assert.match(port, /^127\.0\.0\.1:\d+:\d+$/, `${port} is bound to localhost`);
    }
    const env = ui?.environment ?? {};
    assert.equal(env.TEMPORAL_DISABLE_WRITE_ACTIONS, 'true');
    assert.match(env.TEMPORAL_CODEC_ENDPOINT ?? '', /\/api\/ops\/temporal-codec$/);
    assert.equal(env.TEMPORAL_CODEC_INCLUDE_CREDENTIALS, 'true');
    // The API lets the UI's origin call its codec endpoint from the browser.
    const uiUrl = compose.services.api?.environment?.TEMPORAL_UI_URL ?? '';
    const [published] = ui?.ports ?? [];
    assert.equal(new URL(uiUrl).port, published?.split(':')[1]);
  });
});
