import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { signedInOwner } from '../../commerce/access-tokens/testing.ts';
import { Session } from '../../db/entities/index.ts';
import { startTestApi } from '../testing.ts';

const day = 86_400_000;

describe('fresh sessions', () => {
  let api: Awaited<ReturnType<typeof startTestApi>>;

  before(async () => {
    api = await startTestApi();
  });
  after(() => api.close());

  it('a session signed in days ago stays stale however recently it was used', async () => {
    // The attack: a session taken from its owner's browser is kept alive by using it; each use
    // refreshes it, and a refresh must not make it fresh enough to manage credentials.
    const owner = await signedInOwner(api);
    await api.orm.em
      .fork()
      .nativeUpdate(
        Session,
        { user: owner.userId },
        { createdAt: new Date(Date.now() - 2 * day), updatedAt: new Date() },
      );
    const tokenBody = { comment: 'Persistence', scopes: ['organizations:read'] };

    const token = await owner.call('POST', '/v1/organization-access-tokens/', tokenBody);
    assert.equal(token.status, 403);
    assert.equal(token.body.error, 'NotPermitted');
    const unlink = await owner.client.unlinkAccount({ providerId: 'credential' });
    assert.equal(unlink.error?.status, 403);
    assert.equal(unlink.error?.code, 'SESSION_IS_NOT_FRESH');

    // Signing in again is what makes a session fresh.
    const again = await owner.client.signIn.email({
      email: owner.email,
      password: 'correct horse battery',
    });
    assert.equal(again.error, null);
    const { error } = await owner.client.organization.setActive({
      organizationId: owner.organizationId,
    });
    assert.equal(error, null);
    const created = await owner.call('POST', '/v1/organization-access-tokens/', tokenBody);
    assert.equal(created.status, 201, JSON.stringify(created.body));
  });
});
