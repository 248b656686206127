import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type InvitationFates, runInvariants } from '../bench/soak/invariants.ts';
import { loadRuntimeConfig } from '../config/env.ts';
import { Invitation, Member, Organization, User } from '../db/entities/index.ts';
import { migrateToLatest, openOrm } from '../db/orm.ts';
import { dropDatabase, ensureDatabase } from './postgres.ts';

const minute = 60_000;

/**
 * The soak's invitation invariants (bench/soak/invariants.ts) on a database of their own, whose
 * invitations and members are made to break them one way each.
 */
describe('the soak’s invitation invariants', () => {
  const url = new URL(loadRuntimeConfig().database.url);
  url.pathname = `/tollgate_soak_invariants_${process.pid}`;
  const databaseUrl = url.toString();

  before(async () => {
    await ensureDatabase(databaseUrl);
    const orm = await openOrm(databaseUrl);
    await migrateToLatest(orm);
    await orm.close();
  });
  after(() => dropDatabase(databaseUrl));

  /**
   * An organization whose owner invited `invitees` (each: the invitation's status, when it
   * expires, and when the invitee became a member, if they did): answers the invitations' ids.
   */
  async function invited(
    invitees: { status: Invitation['status']; expiresIn: number; joinedIn?: number }[],
  ) {
    const orm = await openOrm(databaseUrl);
    try {
      const em = orm.em.fork();
      const tag = `${Date.now()}-${Math.random().toString(36).slice(2)}`;
      const organization = em.create(Organization, { name: 'Invariants', slug: `inv-${tag}` });
      const owner = em.create(User, { email: `owner-${tag}@example.com`, name: 'Owner' });
      em.create(Member, { organization, user: owner, role: 'owner' });
      const ids = invitees.map(({ status, expiresIn, joinedIn }, index) => {
        const email = `invitee-${index}-${tag}@example.com`;
        const invitation = em.create(Invitation, {
          organization,
          email,
          role: 'member',
          status,
          inviter: owner,
          expiresAt: new Date(Date.now() + expiresIn),
        });
        if (joinedIn !== undefined) {
          const user = em.create(User, { email, name: 'Invitee' });
          em.create(Member, {
            organization,
            user,
            role: 'member',
            createdAt: new Date(Date.now() + joinedIn),
          });
        }
        return invitation.id;
      });
      await em.flush();
      return ids;
    } finally {
      await orm.close();
    }
  }

  /** The violations of the two invitation invariants, as [invariant, invitation id]. */
  async function violations(invitationFates?: InvitationFates) {
    const results = await runInvariants({ databaseUrl, invitationFates });
    return results
      .filter((result) => result.invariant.includes('invitation'))
      .flatMap((result) =>
        result.violations.map((violation) => [violation.invariant, violation.ids.invitation]),
      );
  }

  it('holds for invitations accepted once in time, canceled or expired without a member', async () => {
    const [accepted, canceled, expired, open] = await invited([
      { status: 'accepted', expiresIn: minute, joinedIn: 0 },
      { status: 'canceled', expiresIn: minute },
      { status: 'pending', expiresIn: -minute },
      { status: 'pending', expiresIn: minute },
    ]);
    assert.deepEqual(
      await violations({
        accepted: [accepted ?? ''],
        canceled: [canceled ?? ''],
        expired: [expired ?? ''],
      }),
      [],
    );
    assert.ok(open);
  });

  it('names an accept without its member, and members of canceled, expired or late-accepted invitations', async () => {
    const [memberless, canceledMember, expiredMember, lateMember] = await invited([
      { status: 'accepted', expiresIn: minute },
      { status: 'canceled', expiresIn: minute, joinedIn: 0 },
      { status: 'pending', expiresIn: -2 * minute, joinedIn: -minute },
      { status: 'accepted', expiresIn: -2 * minute, joinedIn: -minute },
    ]);
    const found = await violations();
    const about = (id: string | undefined) => found.filter(([, invitation]) => invitation === id);
    assert.deepEqual(about(memberless), [
      ['each accepted invitation made exactly one membership', memberless],
    ]);
    for (const id of [canceledMember, expiredMember, lateMember]) {
      assert.deepEqual(about(id), [['no invitation accepted after cancel or expiry', id]]);
    }
  });

  it('names invitations the traffic saw accepted, canceled or left to expire that ended otherwise', async () => {
    const [saidAccepted, saidCanceled, saidExpired] = await invited([
      { status: 'rejected', expiresIn: minute },
      { status: 'pending', expiresIn: minute },
      { status: 'canceled', expiresIn: -minute },
    ]);
    const found = await violations({
      accepted: [saidAccepted ?? ''],
      canceled: [saidCanceled ?? ''],
      expired: [saidExpired ?? ''],
    });
    const about = (id: string | undefined) => found.filter(([, invitation]) => invitation === id);
    assert.deepEqual(about(saidAccepted), [
      ['each accepted invitation made exactly one membership', saidAccepted],
    ]);
    for (const id of [saidCanceled, saidExpired]) {
      assert.deepEqual(about(id), [['no invitation accepted after cancel or expiry', id]]);
    }
  });
});
