import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Session, User, Verification } from '../../db/entities/index.ts';
import { purgeExpiredRecordsState } from '../../processes/purge-expired-records.ts';
import { workflowIds } from '../../processes/workflow-ids.ts';
import { startTestApi } from '../testing.ts';

const hour = 3600_000;
const tokenHash = () => createHash('sha256').update(randomBytes(20)).digest('hex');

describe('purge of expired records: API → workflow → activity → database', () => {
  let api: Awaited<ReturnType<typeof startTestApi>>;
  const headers = {
    authorization: `Bearer ${process.env.TOLLGATE_OPS_TOKEN}`,
    'content-type': 'application/json',
  };
  before(async () => {
    api = await startTestApi();
  });
  after(() => api.close());

  it('deletes what expired before the cut-off and nothing else', async () => {
    // A cut-off of its own, far from "now", so other tests' rows are not in play.
    const cutOff = new Date(Date.UTC(2001, 0, 1, 12));
    const em = api.orm.em.fork();
    const user = em.create(User, {
      email: `purge-${randomBytes(4).toString('hex')}@example.com`,
      name: 'P',
    });
    const expired = em.create(Session, {
      id: tokenHash(),
      user,
      expiresAt: new Date(cutOff.getTime() - hour),
    });
    const live = em.create(Session, {
      id: tokenHash(),
      user,
      expiresAt: new Date(Date.now() + hour),
    });
    const staleToken = em.create(Verification, {
      identifier: user.email,
      value: tokenHash(),
      expiresAt: new Date(cutOff.getTime() - hour),
    });
    await em.flush();

    const response = await fetch(`${api.url}/api/ops/maintenance/purge-expired`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ before: cutOff.toISOString() }),
    });
    assert.equal(response.status, 202);
    const started = (await response.json()) as { workflowId: string; runId: string };
    assert.equal(started.workflowId, workflowIds.purgeExpiredRecords(cutOff));

    const result = await api.temporal.workflow.getHandle(started.workflowId).result();
    assert.equal(result.stage, 'done');
    assert.equal(result.sessionsDeleted, 1);
    assert.equal(result.verificationsDeleted, 1);

    const check = api.orm.em.fork();
    assert.equal(await check.count(Session, { id: expired.id }), 0);
    assert.equal(await check.count(Session, { id: live.id }), 1);
    assert.equal(await check.count(Verification, { id: staleToken.id }), 0);

    // The workflow's query and the API's read of it agree with the result.
    const queried = await api.temporal.workflow
      .getHandle(started.workflowId)
      .query(purgeExpiredRecordsState);
    assert.deepEqual(queried, result);
    const read = await fetch(
      `${api.url}/api/ops/maintenance/purge-expired/${cutOff.toISOString()}`,
      { headers },
    );
    assert.deepEqual(await read.json(), result);
  });

  it('joins the running workflow when the same request is retried', async () => {
    const before = new Date(Date.UTC(2002, 5, 1)).toISOString();
    const start = () =>
      fetch(`${api.url}/api/ops/maintenance/purge-expired`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ before }),
      }).then((response) => response.json() as Promise<{ workflowId: string; runId: string }>);
    const [first, second] = await Promise.all([start(), start()]);
    assert.equal(first.workflowId, second.workflowId);
    assert.equal(first.runId, second.runId);
  });

  it('refuses callers without the operations token', async () => {
    const response = await fetch(`${api.url}/api/ops/maintenance/purge-expired`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer wrong' },
      body: '{}',
    });
    assert.equal(response.status, 401);
    assert.equal(((await response.json()) as { code: string }).code, 'UNAUTHORIZED');
  });

  it('answers 400 for a malformed cut-off or a body that is not JSON, 413 for a huge one', async () => {
    const malformed = await fetch(`${api.url}/api/ops/maintenance/purge-expired`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ before: 'yesterday' }),
    });
    assert.equal(malformed.status, 400);
    assert.equal(((await malformed.json()) as { code: string }).code, 'VALIDATION_ERROR');
    const notJson = await fetch(`${api.url}/api/ops/maintenance/purge-expired`, {
      method: 'POST',
      headers,
      body: '{"before":',
    });
    assert.equal(notJson.status, 400);
    assert.equal(((await notJson.json()) as { code: string }).code, 'INVALID_REQUEST_BODY');
    const huge = await fetch(`${api.url}/api/ops/maintenance/purge-expired`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ before: 'x'.repeat(2 * 1024 * 1024) }),
    });
    assert.equal(huge.status, 413);
  });
});
