import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { ConfigurationError, loadConfig, loadRuntimeConfig } from '../../config/env.ts';
import { Account, ApiKey, Session, User } from '../../db/entities/index.ts';
import { capturedMailsTo } from '../../integrations/mail/testing.ts';
import { startApiServer } from '../server.ts';
import { browserAuthClient } from './testing.ts';

const password = 'correct horse battery';
const uniqueEmail = () => `delete-${randomBytes(6).toString('hex')}@example.com`;
const day = 86_400_000;

describe('TOLLGATE_DELETE_USER_VERIFICATION', () => {
  it('is mail unless set to none; anything else stops start-up naming it', () => {
    assert.equal(loadConfig({}).auth.deleteUserVerification, 'mail');
    assert.equal(
      loadConfig({ TOLLGATE_DELETE_USER_VERIFICATION: 'none' }).auth.deleteUserVerification,
      'none',
    );
    assert.throws(
      () => loadConfig({ TOLLGATE_DELETE_USER_VERIFICATION: 'off' }),
      (error: unknown) =>
        error instanceof ConfigurationError &&
        /^TOLLGATE_DELETE_USER_VERIFICATION must be mail or none/.test(error.message),
    );
  });
});

// With mail (the default) delete-user mails a link: account.test.ts covers that flow.
describe('delete-user with no verification mail (none), through the Better Auth client', () => {
  let api: Awaited<ReturnType<typeof startApiServer>>;
  let trustedOrigin: string;
  const browser = () => browserAuthClient(api.url, trustedOrigin);

  before(async () => {
    const config = loadRuntimeConfig();
    api = await startApiServer(
      { ...config, auth: { ...config.auth, deleteUserVerification: 'none' } },
      { host: '127.0.0.1', port: 0 },
    );
    trustedOrigin = new URL(api.config.api.publicUrl).origin;
  });
  after(() => api.close());

  async function signedUp() {
    const signedUpBrowser = browser();
    const email = uniqueEmail();
    const { data } = await signedUpBrowser.client.signUp.email({ email, password, name: 'Ada' });
    assert.ok(data);
    return { ...signedUpBrowser, email, userId: data.user.id };
  }

  const remaining = async (userId: string) => {
    const em = api.orm.em.fork();
    return {
      users: await em.count(User, { id: userId }),
      sessions: await em.count(Session, { user: userId }),
      accounts: await em.count(Account, { user: userId }),
      keys: await em.count(ApiKey, { user: userId }),
    };
  };

  it('deletes at once with the right password, with everything of the user, and mails nothing', async () => {
    const owner = await signedUp();
    await owner.client.apiKey.create({ name: 'goes too' });
    const wrong = await owner.client.deleteUser({ password: 'not my password' });
    assert.equal(wrong.error?.status, 400);
    assert.equal(wrong.error?.code, 'INVALID_PASSWORD');
    assert.equal((await remaining(owner.userId)).users, 1);

    const { data, error } = await owner.client.deleteUser({ password });
    assert.equal(error, null);
    assert.deepEqual(data, { success: true, message: 'User deleted' });
    assert.deepEqual(await remaining(owner.userId), {
      users: 0,
      sessions: 0,
      accounts: 0,
      keys: 0,
    });
    assert.equal(owner.cookies.header(), '', 'the session cookies are cleared');
    assert.equal((await owner.client.getSession()).data, null);
    assert.deepEqual(await capturedMailsTo(owner.email, /deleting your account/), []);
  });

  it('without a password deletes only for a recent sign-in, as Better Auth checks freshness', async () => {
    const fresh = await signedUp();
    const { data } = await fresh.client.deleteUser({});
    assert.deepEqual(data, { success: true, message: 'User deleted' });
    assert.equal((await remaining(fresh.userId)).users, 0);

    const stale = await signedUp();
    // Signed in two days ago: past the day a session stays fresh.
    await api.orm.em
      .fork()
      .nativeUpdate(Session, { user: stale.userId }, { createdAt: new Date(Date.now() - 2 * day) });
    const refused = await stale.client.deleteUser({});
    assert.equal(refused.error?.status, 400);
    assert.equal(refused.error?.code, 'SESSION_EXPIRED_REAUTHENTICATE_TO_PERFORM_THIS_ACTION');
    assert.equal((await remaining(stale.userId)).users, 1);
    // The password still proves the owner.
    const withPassword = await stale.client.deleteUser({ password });
    assert.equal(withPassword.data?.message, 'User deleted');
    assert.equal((await remaining(stale.userId)).users, 0);
  });

  it('refuses without a session and deletes nobody else', async () => {
    const bystander = await signedUp();
    const signedOut = await browser().client.deleteUser({ password });
    assert.equal(signedOut.error?.status, 401);
    assert.equal((await remaining(bystander.userId)).users, 1);
  });
});
