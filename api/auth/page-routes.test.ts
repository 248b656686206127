import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi } from '../testing.ts';

describe('auth pages', () => {
  let api: Awaited<ReturnType<typeof startTestApi>>;
  before(async () => {
    api = await startTestApi();
  });
  after(() => api.close());

  it('GET /api/auth/ok answers ok', async () => {
    const response = await fetch(`${api.url}/api/auth/ok`);
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { ok: true });
  });

  it('GET /api/auth/error shows the code, escaped, with a way back', async () => {
    const response = await fetch(`${api.url}/api/auth/error?error=%3Cscript%3Estate_not_found`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /text\/html/);
    const page = await response.text();
    assert.match(page, /&#60;script&#62;state_not_found/);
    assert.doesNotMatch(page, /<script>/);
    assert.match(page, /<a href="\/">Return to Application<\/a>/);
  });

  it('an unknown API path answers 404 in JSON', async () => {
    const response = await fetch(`${api.url}/api/auth/no-such-route`);
    assert.equal(response.status, 404);
    assert.deepEqual(await response.json(), {
      code: 'NOT_FOUND',
      message: 'No route GET /api/auth/no-such-route',
    });
  });

  it('a wrong method on a known auth path answers 404, as Better Auth does', async () => {
    const response = await fetch(`${api.url}/api/auth/sign-out`);
    assert.equal(response.status, 404);
    assert.equal(((await response.json()) as { code: string }).code, 'NOT_FOUND');
  });
});
