import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { Session, User, Verification } from '../../db/entities/index.ts';
import type { Orm } from '../../db/orm.ts';

/**
 * The session token of a new account, for tests of the operations API (/api/ops): made a
 * platform admin with `admin`, as the admin plugin's set-role would. Present it as a bearer token.
 */
export async function opsSessionToken(
  api: { url: string; orm: Orm },
  { admin }: { admin: boolean },
): Promise<string> {
  const email = `ops-${randomBytes(5).toString('hex')}@example.com`;
  const response = await fetch(`${api.url}/api/auth/sign-up/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'correct horse battery', name: 'Operator' }),
  });
  assert.equal(response.status, 200);
  const { token } = (await response.json()) as { token: string };
  if (admin) await api.orm.em.fork().nativeUpdate(User, { email }, { role: 'admin' });
  return token;
}

const hour = 3600_000;
export const randomTokenHash = () => createHash('sha256').update(randomBytes(20)).digest('hex');

/**
 * What the expired-records purge works on: a user with a session and a verification token that
 * expired an hour before `expiredBefore`, and a session still live an hour from now.
 */
export async function seedExpiringAuthRecords(orm: Orm, expiredBefore: Date) {
  const em = orm.em.fork();
  const user = em.create(User, {
    email: `purge-${randomBytes(4).toString('hex')}@example.com`,
    name: 'P',
  });
  const expiresAt = new Date(expiredBefore.getTime() - hour);
  const expired = em.create(Session, { id: randomTokenHash(), user, expiresAt });
  const live = em.create(Session, {
    id: randomTokenHash(),
    user,
    expiresAt: new Date(Date.now() + hour),
  });
  const staleToken = em.create(Verification, {
    identifier: user.email,
    value: randomTokenHash(),
    expiresAt,
  });
  await em.flush();
  return { expired, live, staleToken };
}

/** Whether the purge removed exactly the expired session and token of `seedExpiringAuthRecords`. */
export async function assertExpiredAuthRecordsPurged(
  orm: Orm,
  { expired, live, staleToken }: Awaited<ReturnType<typeof seedExpiringAuthRecords>>,
) {
  const check = orm.em.fork();
  assert.equal(await check.count(Session, { id: expired.id }), 0);
  assert.equal(await check.count(Session, { id: live.id }), 1);
  assert.equal(await check.count(Verification, { id: staleToken.id }), 0);
}
