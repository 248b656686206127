import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { User } from '../../db/entities/index.ts';
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
