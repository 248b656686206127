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
  volumes?: string[];
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

  it('adds Prometheus, Grafana and an OTel collector under the observability profile', () => {
    const observability = ['prometheus', 'grafana', 'otel-collector', 'jaeger'];
    for (const name of observability) {
      const service = compose.services[name];
      assert.deepEqual(service?.profiles, ['observability'], name);
      for (const port of service?.ports ?? [])
        assert.match(port, /^127\.0\.0\.1:/, `${name} ${port}`);
      // Every file mounted from the repository exists.
      for (const volume of service?.volumes ?? []) {
        const [source = ''] = volume.split(':');
        if (source.startsWith('./')) assert.ok(existsSync(join(projectRoot, source)), source);
      }
    }
    // Prometheus scrapes the API's port and the worker's metrics port, with the metrics token.
    const prometheus = parse(
      readFileSync(join(projectRoot, 'devstack/observability/prometheus.yml'), 'utf8'),
    ) as {
      scrape_configs: {
        job_name: string;
        dns_sd_configs?: { names: string[]; port: number }[];
        authorization?: { credentials_file: string };
      }[];
    };
    const job = (name: string) =>
      prometheus.scrape_configs.find((entry) => entry.job_name === name);
    assert.deepEqual(job('tollgate-api')?.dns_sd_configs?.[0], {
      names: ['api'],
      type: 'A',
      port: 3000,
    });
    const worker = compose.services.worker?.environment ?? {};
    assert.deepEqual(job('tollgate-worker')?.dns_sd_configs?.[0], {
      names: ['worker'],
      type: 'A',
      port: Number(worker.TOLLGATE_WORKER_METRICS_PORT),
    });
    assert.equal(worker.TOLLGATE_WORKER_METRICS_HOST, '0.0.0.0');
    for (const name of ['tollgate-api', 'tollgate-worker']) {
      assert.equal(job(name)?.authorization?.credentials_file, '/etc/prometheus/metrics-token');
    }
    assert.match(
      compose.services.api?.environment?.TOLLGATE_METRICS_TOKEN ?? '',
      /TOLLGATE_METRICS_TOKEN/,
    );
    // Grafana loads the example dashboard, which reads the provisioned Prometheus.
    const dashboard = JSON.parse(
      readFileSync(join(projectRoot, 'docs/grafana-dashboard.json'), 'utf8'),
    ) as { panels: { datasource?: { uid: string } }[] };
    assert.ok(
      compose.services.grafana?.volumes?.some((volume) =>
        volume.startsWith('./docs/grafana-dashboard.json:'),
      ),
    );
    for (const panel of dashboard.panels) {
      if (panel.datasource) assert.equal(panel.datasource.uid, 'prometheus');
    }
  });
});
