import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { loadRuntimeConfig } from '../../config/env.ts';
import { User } from '../../db/entities/index.ts';
import { startApiServer } from '../server.ts';

/** This machine's first address that is not loopback: requests to it come from outside. */
const outsideAddress = Object.values(networkInterfaces())
  .flat()
  .find((address) => address && !address.internal && address.family === 'IPv4')?.address;

describe('dev outbox (/api/dev/outbox)', () => {
  const opsToken = randomBytes(32).toString('hex');
  let api: Awaited<ReturnType<typeof startApiServer>>;
  let loopbackBase: string;
  let loopbackUrl: string;
  let outsideUrl: string;

  before(async () => {
    const config = loadRuntimeConfig();
    assert.ok(config.mail.captureDir, 'the test run captures mail');
    assert.ok(outsideAddress, 'this machine has a non-loopback interface');
    // On every interface, as a development API bound to 0.0.0.0 would be.
    api = await startApiServer(
      { ...config, env: 'development', opsToken },
      {
        host: '0.0.0.0',
        port: 0,
      },
    );
    const { port } = api.server.address() as AddressInfo;
    loopbackBase = `http://127.0.0.1:${port}`;
    loopbackUrl = `${loopbackBase}/api/dev/outbox`;
    outsideUrl = `http://${outsideAddress}:${port}/api/dev/outbox`;
  });
  after(() => api.close());

  /** A new account's session token; `admin` makes it an admin (the demo user is one). */
  async function signedUp({ admin }: { admin: boolean }): Promise<string> {
    const email = `outbox-${randomBytes(5).toString('hex')}@example.com`;
    const response = await fetch(`${loopbackBase}/api/auth/sign-up/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'correct horse battery', name: 'Outbox Reader' }),
    });
    assert.equal(response.status, 200);
    const { token } = (await response.json()) as { token: string };
    if (admin) await api.orm.em.fork().nativeUpdate(User, { email }, { role: 'admin' });
    return token;
  }

  const read = (url: string, headers: Record<string, string> = {}) =>
    fetch(url, { headers }).then(async (response) => ({
      status: response.status,
      body: (await response.json()) as { items?: unknown[]; code?: string },
    }));

  it('refuses a stranger: no session, a wrong token', async () => {
    const anonymous = await read(loopbackUrl);
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.body.items, undefined);
    const guessed = await read(loopbackUrl, { authorization: `Bearer ${'0'.repeat(64)}` });
    assert.equal(guessed.status, 401);
  });

  it('refuses a signed-in user who is not an admin: the mails hold everyone’s reset links', async () => {
    const token = await signedUp({ admin: false });
    const response = await read(loopbackUrl, { authorization: `Bearer ${token}` });
    assert.equal(response.status, 403);
    assert.equal(response.body.items, undefined);
  });

  it('refuses requests from another machine, whatever they claim or hold', async () => {
    const attempts: Record<string, string>[] = [
      { authorization: `Bearer ${opsToken}` },
      { authorization: `Bearer ${opsToken}`, 'x-forwarded-for': '127.0.0.1' },
    ];
    for (const headers of attempts) {
      const response = await read(outsideUrl, headers);
      assert.equal(response.status, 403);
      assert.equal(response.body.items, undefined);
    }
  });

  it('shows the mails to an admin, or with the ops token, on this machine', async () => {
    const admin = await signedUp({ admin: true });
    for (const credential of [admin, opsToken]) {
      const response = await read(loopbackUrl, { authorization: `Bearer ${credential}` });
      assert.equal(response.status, 200);
      assert.ok(Array.isArray(response.body.items));
    }
  });
});
