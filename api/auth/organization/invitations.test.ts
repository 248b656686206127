import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import { organizationMessages } from '../../../accounts/organization/errors.ts';
import { loadRuntimeConfig } from '../../../config/env.ts';
import { Invitation, Member, Session, Team, TeamMember, User } from '../../../db/entities/index.ts';
import { extractLinks, waitForMail } from '../../../integrations/mail/testing.ts';
import { workflowIds } from '../../../processes/workflow-ids.ts';
import { connectTemporal } from '../../../temporal/client.ts';
import { startApiServer } from '../../server.ts';
import { browserAuthClient } from '../testing.ts';

const password = 'correct horse battery';
const uniqueTag = () => randomBytes(5).toString('hex');
const hour = 3_600_000;

type Api = Awaited<ReturnType<typeof startApiServer>>;
type RuntimeAuth = ReturnType<typeof loadRuntimeConfig>['auth'];

/** An error as Better Auth's client hands it over, with the fields the wire carried. */
const failure = (error: unknown) => error as { status: number; code?: string; message?: string };

function assertRefused(
  { data, error }: { data: unknown; error: unknown },
  status: number,
  message: keyof typeof organizationMessages,
) {
  assert.equal(data, null);
  assert.equal(failure(error)?.status, status, JSON.stringify(error));
  assert.equal(failure(error).message, organizationMessages[message]);
  assert.match(failure(error).code ?? '', /^[A-Z_]+$/);
}

/** The API with some auth settings overridden (limits). */
function startApi(auth: Partial<RuntimeAuth> = {}): Promise<Api> {
  const config = loadRuntimeConfig();
  return startApiServer(
    { ...config, auth: { ...config.auth, ...auth } },
    { host: '127.0.0.1', port: 0 },
  );
}

/** Users, each signed in in a browser of their own, and organizations made through the client. */
function fixtures(api: Api) {
  const origin = new URL(api.config.api.publicUrl).origin;

  /**
   * A browser signed up as a new user, with a verified email (as if they had followed the
   * verification mail) unless `verified` is false: someone who merely typed the address.
   */
  async function signedInUser(name = 'Someone', { verified = true } = {}) {
    const browser = browserAuthClient(api.url, origin);
    const email = `invitations-${uniqueTag()}@example.com`;
    const { data, error } = await browser.client.signUp.email({ email, password, name });
    assert.equal(error, null);
    const id = data?.user.id ?? '';
    if (verified) await api.orm.em.fork().nativeUpdate(User, { id }, { emailVerified: true });
    return { ...browser, email, id };
  }
  type Someone = Awaited<ReturnType<typeof signedInUser>>;

  /** An organization `owner` created (and is now active in), with others added by role. */
  async function organization(owner: Someone, others: [Someone, string][] = []) {
    const { data, error } = await owner.client.organization.create({
      name: `Invitations ${uniqueTag()}`,
      slug: `invitations-${uniqueTag()}`,
    });
    assert.equal(error, null);
    const id = data?.id ?? '';
    const em = api.orm.em.fork();
    for (const [someone, role] of others) {
      em.create(Member, { organization: id, user: someone.id, role });
    }
    await em.flush();
    return { id, name: data?.name ?? '', slug: data?.slug ?? '' };
  }

  async function invite(
    inviter: Someone,
    organizationId: string,
    invitee: Someone,
    role: 'admin' | 'member' = 'member',
  ) {
    const { data, error } = await inviter.client.organization.inviteMember({
      email: invitee.email,
      role,
      organizationId,
    });
    assert.equal(error, null, JSON.stringify(error));
    return data?.id ?? '';
  }

  /** The proof token in the link of the invitation mail `invitee` got for `invitationId`. */
  async function mailedToken(invitee: Someone, invitationId: string) {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const mail = await waitForMail({ to: invitee.email, subject: /invited to join/ });
      const link = extractLinks(mail).find((found) => found.includes(invitationId));
      const token = link && new URL(link).searchParams.get('token');
      if (token) return token;
      if (Date.now() > deadline) throw new Error(`No invitation mail for ${invitationId}`);
      await sleep(100);
    }
  }

  const storedInvitation = (id: string) =>
    api.orm.em.fork().findOneOrFail(Invitation, { id }, { populate: ['team'] });

  const storedSession = (someone: Someone) =>
    api.orm.em.fork().findOneOrFail(Session, { user: someone.id });

  return {
    origin,
    signedInUser,
    organization,
    invite,
    mailedToken,
    storedInvitation,
    storedSession,
  };
}

describe('invitations through the Better Auth organization client', () => {
  let api: Api;
  let temporal: Client;
  let f: ReturnType<typeof fixtures>;
  let owner: Awaited<ReturnType<ReturnType<typeof fixtures>['signedInUser']>>;
  let organization: Awaited<ReturnType<ReturnType<typeof fixtures>['organization']>>;

  const workflowResult = (invitationId: string) =>
    temporal.workflow.getHandle(workflowIds.invitation(invitationId)).result();

  before(async () => {
    api = await startApi();
    temporal = await connectTemporal(api.config.temporal);
    f = fixtures(api);
    owner = await f.signedInUser('Owner');
    organization = await f.organization(owner);
  });
  after(async () => {
    await temporal.connection.close();
    await api.close();
  });

  it('mails the invitation, and accepting makes a member with its role and activates the organization', async () => {
    const invitee = await f.signedInUser('Invitee');
    const created = await owner.client.organization.inviteMember({
      email: invitee.email.toUpperCase(),
      role: 'admin',
      organizationId: organization.id,
    });
    assert.equal(created.error, null);
    const invitation = created.data;
    assert.ok(invitation);
    const invitationId = invitation.id ?? '';
    assert.deepEqual(
      { ...invitation, id: undefined, expiresAt: undefined },
      {
        id: undefined,
        organizationId: organization.id,
        email: invitee.email,
        role: 'admin',
        teamId: null,
        status: 'pending',
        expiresAt: undefined,
        inviterId: owner.id,
      },
    );
    const lifetime = new Date(invitation.expiresAt).getTime() - Date.now();
    assert.ok(lifetime > 47 * hour && lifetime <= 48 * hour, 'lives 172800 s by default');

    const mail = await waitForMail({ to: invitee.email, subject: /invited to join/ });
    assert.ok(mail.subject.includes(organization.name));
    assert.ok(mail.text.includes(owner.email), 'names the inviter');
    const [link, ...otherLinks] = extractLinks(mail);
    assert.deepEqual(otherLinks, []);
    const acceptUrl = new URL(link ?? '');
    assert.equal(
      `${acceptUrl.origin}${acceptUrl.pathname}`,
      `${api.config.api.publicUrl}/accept-invitation/${invitationId}`,
    );
    assert.ok(acceptUrl.searchParams.get('token'), 'the link carries the proof of the address');

    const shown = await invitee.client.organization.getInvitation({ query: { id: invitationId } });
    assert.equal(shown.error, null);
    assert.deepEqual(shown.data, {
      ...invitation,
      organizationName: organization.name,
      organizationSlug: organization.slug,
      inviterEmail: owner.email,
    });
    const mine = await invitee.client.organization.listUserInvitations();
    assert.deepEqual(
      mine.data?.map(({ id }) => id),
      [invitationId],
    );

    const accepted = await invitee.client.organization.acceptInvitation({
      invitationId,
    });
    assert.equal(accepted.error, null);
    assert.equal(accepted.data?.invitation.status, 'accepted');
    assert.equal(accepted.data?.invitation.id, invitationId);
    const member = accepted.data?.member;
    assert.deepEqual(
      { ...member, id: undefined, createdAt: undefined },
      {
        id: undefined,
        createdAt: undefined,
        organizationId: organization.id,
        userId: invitee.id,
        role: 'admin',
      },
    );
    const stored = await api.orm.em
      .fork()
      .findOneOrFail(Member, { organization: organization.id, user: invitee.id });
    assert.equal(stored.role, 'admin');
    assert.equal(stored.id, member?.id);
    assert.equal((await f.storedSession(invitee)).activeOrganizationId, organization.id);
    const session = await invitee.client.getSession({ query: { disableCookieCache: true } });
    const activeSession = session.data?.session as { activeOrganizationId?: string } | undefined;
    assert.equal(activeSession?.activeOrganizationId, organization.id);
    assert.equal(await workflowResult(invitationId), 'accepted');
    assert.equal((await f.storedInvitation(invitationId)).status, 'accepted');

    // Answered once: the same invitation cannot be accepted (or rejected) again.
    assertRefused(
      await invitee.client.organization.acceptInvitation({ invitationId }),
      400,
      'INVITATION_NOT_FOUND',
    );
    assertRefused(
      await invitee.client.organization.rejectInvitation({ invitationId }),
      400,
      'INVITATION_NOT_FOUND_EXCLAIMED',
    );
  });

  it('rejecting leaves no member and ends the invitation', async () => {
    const invitee = await f.signedInUser();
    const invitationId = await f.invite(owner, organization.id, invitee);
    const rejected = await invitee.client.organization.rejectInvitation({ invitationId });
    assert.equal(rejected.error, null);
    assert.equal(rejected.data?.invitation?.status, 'rejected');
    assert.equal(rejected.data?.member, null);
    assert.equal(await workflowResult(invitationId), 'rejected');
    const members = await api.orm.em
      .fork()
      .count(Member, { organization: organization.id, user: invitee.id });
    assert.equal(members, 0);
    assertRefused(
      await invitee.client.organization.acceptInvitation({ invitationId }),
      400,
      'INVITATION_NOT_FOUND',
    );
    assertRefused(
      await invitee.client.organization.getInvitation({ query: { id: invitationId } }),
      400,
      'INVITATION_NOT_FOUND_EXCLAIMED',
    );
  });

  it('cancel: the owner cancels, then the invitee can no longer accept; a plain member may not', async () => {
    const invitee = await f.signedInUser();
    const plainMember = await f.signedInUser();
    const team = await f.organization(owner, [[plainMember, 'member']]);
    const invitationId = await f.invite(owner, team.id, invitee);

    assertRefused(
      await plainMember.client.organization.cancelInvitation({ invitationId }),
      403,
      'YOU_ARE_NOT_ALLOWED_TO_CANCEL_THIS_INVITATION',
    );
    const canceled = await owner.client.organization.cancelInvitation({ invitationId });
    assert.equal(canceled.error, null);
    assert.equal(canceled.data?.status, 'canceled');
    assert.equal(await workflowResult(invitationId), 'canceled');
    assertRefused(
      await invitee.client.organization.acceptInvitation({ invitationId }),
      400,
      'INVITATION_NOT_FOUND',
    );
    // Canceling again answers the same invitation, as Better Auth does.
    const again = await owner.client.organization.cancelInvitation({ invitationId });
    assert.equal(again.data?.status, 'canceled');
    assertRefused(
      await owner.client.organization.cancelInvitation({ invitationId: 'not-an-invitation' }),
      400,
      'INVITATION_NOT_FOUND',
    );
  });

  it('refuses everyone but the recipient', async () => {
    const invitee = await f.signedInUser();
    const someoneElse = await f.signedInUser();
    const invitationId = await f.invite(owner, organization.id, invitee);
    for (const result of [
      await someoneElse.client.organization.getInvitation({ query: { id: invitationId } }),
      await someoneElse.client.organization.acceptInvitation({ invitationId }),
      await someoneElse.client.organization.rejectInvitation({ invitationId }),
      // Not even the inviter can answer for the invitee.
      await owner.client.organization.acceptInvitation({ invitationId }),
    ]) {
      assertRefused(result, 403, 'YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION');
    }
    assert.deepEqual((await someoneElse.client.organization.listUserInvitations()).data, []);
    assert.equal((await f.storedInvitation(invitationId)).status, 'pending');

    const { client: signedOut } = browserAuthClient(api.url, f.origin);
    assertRefused(
      await signedOut.organization.getInvitation({ query: { id: invitationId } }),
      401,
      'NOT_AUTHENTICATED',
    );
    const anonymous = await signedOut.organization.acceptInvitation({ invitationId });
    assert.equal(failure(anonymous.error).status, 401);
    assertRefused(
      await signedOut.organization.listUserInvitations(),
      400,
      'MISSING_SESSION_HEADERS_OR_EMAIL_QUERY_PARAMETER',
    );
    assertRefused(
      await invitee.client.organization.listUserInvitations({ query: { email: owner.email } }),
      400,
      'USER_EMAIL_CANNOT_BE_PASSED_FOR_CLIENT_SIDE_API_CALLS',
    );
  });

  it('an account that merely signed up with the invited address can neither accept nor reject', async () => {
    // The attack: an admin invites an address; someone who cannot read its mail signs up with
    // it (nothing checks the address at sign-up) and answers the invitation.
    const impostor = await f.signedInUser('Impostor', { verified: false });
    const invitationId = await f.invite(owner, organization.id, impostor, 'admin');
    // A real token, but of an invitation the impostor got at an address they do read.
    const ownAddress = await f.signedInUser('Impostor elsewhere');
    const otherInvitationId = await f.invite(owner, organization.id, ownAddress);
    const otherToken = await f.mailedToken(ownAddress, otherInvitationId);

    for (const token of [undefined, otherToken, 'forged.token', '']) {
      const body = { invitationId, token } as { invitationId: string };
      const refusals = [
        await impostor.client.organization.acceptInvitation(body),
        await impostor.client.organization.rejectInvitation(body),
      ];
      for (const refused of refusals) {
        assertRefused(
          refused,
          403,
          'EMAIL_VERIFICATION_REQUIRED_BEFORE_ACCEPTING_OR_REJECTING_INVITATION',
        );
      }
    }
    const em = api.orm.em.fork();
    assert.equal(await em.count(Member, { organization: organization.id, user: impostor.id }), 0);
    assert.equal((await f.storedInvitation(invitationId)).status, 'pending');
    assert.equal((await em.findOneOrFail(User, { id: impostor.id })).emailVerified, false);
    assert.equal((await f.storedSession(impostor)).activeOrganizationId, null);
  });

  it("the mailed link's token proves the address: accepting with it verifies the email", async () => {
    const invitee = await f.signedInUser('Newcomer', { verified: false });
    const invitationId = await f.invite(owner, organization.id, invitee, 'admin');
    const token = await f.mailedToken(invitee, invitationId);
    const accepted = await invitee.client.organization.acceptInvitation({
      invitationId,
      token,
    } as { invitationId: string });
    assert.equal(accepted.error, null, JSON.stringify(accepted.error));
    assert.equal(accepted.data?.member.role, 'admin');
    const { data: session } = await invitee.client.getSession({
      query: { disableCookieCache: true },
    });
    assert.equal(session?.user.emailVerified, true);
    assert.equal(await workflowResult(invitationId), 'accepted');

    // Rejecting proves it the same way.
    const another = await f.signedInUser('Declines', { verified: false });
    const declined = await f.invite(owner, organization.id, another);
    const rejected = await another.client.organization.rejectInvitation({
      invitationId: declined,
      token: await f.mailedToken(another, declined),
    } as { invitationId: string });
    assert.equal(rejected.data?.invitation?.status, 'rejected');
    assert.equal(await workflowResult(declined), 'rejected');
  });

  it('an invitation whose inviter left the organization cannot be seen or accepted', async () => {
    const admin = await f.signedInUser('Admin');
    const invitee = await f.signedInUser();
    const team = await f.organization(owner, [[admin, 'admin']]);
    const invitationId = await f.invite(admin, team.id, invitee);
    await api.orm.em.fork().nativeDelete(Member, { organization: team.id, user: admin.id });
    assertRefused(
      await invitee.client.organization.getInvitation({ query: { id: invitationId } }),
      400,
      'INVITER_IS_NO_LONGER_A_MEMBER_OF_THE_ORGANIZATION',
    );
    assertRefused(
      await invitee.client.organization.acceptInvitation({ invitationId }),
      400,
      'INVITER_IS_NO_LONGER_A_MEMBER_OF_THE_ORGANIZATION',
    );
    const members = await api.orm.em.fork().count(Member, { organization: team.id });
    assert.equal(members, 1, 'only the owner');
    assert.equal((await f.storedInvitation(invitationId)).status, 'pending');
  });

  it('invite-member refuses what Better Auth refuses, and resend mails the same invitation again', async () => {
    const admin = await f.signedInUser('Admin');
    const plainMember = await f.signedInUser('Member');
    const outsider = await f.signedInUser('Outsider');
    const invitee = await f.signedInUser();
    const team = await f.organization(owner, [
      [admin, 'admin'],
      [plainMember, 'member'],
    ]);
    const inviteTo = (who: typeof owner, body: Record<string, unknown>) =>
      who.client.organization.inviteMember({
        email: invitee.email,
        role: 'member',
        organizationId: team.id,
        ...body,
      } as Parameters<typeof owner.client.organization.inviteMember>[0]);

    assertRefused(
      await inviteTo(plainMember, {}),
      403,
      'YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION',
    );
    assertRefused(await inviteTo(outsider, {}), 400, 'MEMBER_NOT_FOUND');
    assertRefused(
      await inviteTo(admin, { role: 'owner' }),
      403,
      'YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE',
    );
    assertRefused(await inviteTo(owner, { role: 'superuser' }), 400, 'ROLE_NOT_FOUND');
    assertRefused(
      await inviteTo(owner, { email: admin.email }),
      400,
      'USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION',
    );
    assertRefused(await inviteTo(owner, { teamId: crypto.randomUUID() }), 400, 'TEAM_NOT_FOUND');
    const badEmail = await inviteTo(owner, { email: 'not an email' });
    assert.equal(failure(badEmail.error).status, 400);
    assert.equal(failure(badEmail.error).code, 'INVALID_EMAIL');
    // No organization named and none active: Better Auth's "not found".
    const { client: fresh } = browserAuthClient(api.url, f.origin);
    await fresh.signUp.email({
      email: `invitations-${uniqueTag()}@example.com`,
      password,
      name: 'X',
    });
    assertRefused(
      await fresh.organization.inviteMember({ email: invitee.email, role: 'member' }),
      400,
      'ORGANIZATION_NOT_FOUND',
    );
    const invalid = await owner.client.organization.inviteMember({ role: 'member' } as never);
    assert.equal(failure(invalid.error).code, 'VALIDATION_ERROR');

    // Admins may invite, with any role but owner.
    const first = await inviteTo(admin, { role: 'admin' });
    assert.equal(first.error, null);
    const invitationId = first.data?.id ?? '';
    const firstMail = await waitForMail({ to: invitee.email, subject: /invited to join/ });
    assertRefused(await inviteTo(owner, {}), 400, 'USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION');

    const resent = await inviteTo(owner, { resend: true });
    assert.equal(resent.error, null);
    assert.equal(resent.data?.id, invitationId, 'the same invitation');
    assert.equal(resent.data?.role, 'admin', 'as first made');
    assert.ok(new Date(resent.data?.expiresAt ?? 0) > new Date(first.data?.expiresAt ?? 0));
    assert.equal(
      (await f.storedInvitation(invitationId)).expiresAt.toISOString(),
      new Date(resent.data?.expiresAt ?? 0).toISOString(),
    );
    // The workflow moved on to a new run, which mails the invitation again.
    const deadline = Date.now() + 10_000;
    let secondMail = firstMail;
    while (secondMail.messageId === firstMail.messageId && Date.now() < deadline) {
      secondMail = await waitForMail({ to: invitee.email, subject: /invited to join/ });
    }
    assert.notEqual(secondMail.messageId, firstMail.messageId);
    const accepted = await invitee.client.organization.acceptInvitation({ invitationId });
    assert.equal(accepted.data?.member.role, 'admin');
    assert.equal(await workflowResult(invitationId), 'accepted');
  });

  it('an invitation to a team adds the new member to it and makes it active', async () => {
    const invitee = await f.signedInUser();
    const em = api.orm.em.fork();
    const team = em.create(Team, { organization: organization.id, name: `Team ${uniqueTag()}` });
    await em.flush();
    const invited = await owner.client.organization.inviteMember({
      email: invitee.email,
      role: 'member',
      organizationId: organization.id,
      teamId: team.id,
    });
    assert.equal((invited.data as { teamId?: string } | null)?.teamId, team.id);
    const invitationId = invited.data?.id ?? '';
    const accepted = await invitee.client.organization.acceptInvitation({ invitationId });
    assert.equal(accepted.error, null);
    const inTeam = await api.orm.em.fork().count(TeamMember, { team: team.id, user: invitee.id });
    assert.equal(inTeam, 1);
    const session = await f.storedSession(invitee);
    assert.equal(session.activeTeamId, team.id);
    assert.equal(session.activeOrganizationId, organization.id);
  });

  it('a member of one organization can neither list nor cancel the invitations of another', async () => {
    const ownerB = await f.signedInUser('Owner B');
    const invitee = await f.signedInUser();
    const organizationB = await f.organization(ownerB);
    const invitationId = await f.invite(ownerB, organizationB.id, invitee);

    assertRefused(
      await owner.client.organization.listInvitations({
        query: { organizationId: organizationB.id },
      }),
      403,
      'YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION',
    );
    assertRefused(
      await owner.client.organization.cancelInvitation({ invitationId }),
      400,
      'MEMBER_NOT_FOUND',
    );
    assert.equal((await f.storedInvitation(invitationId)).status, 'pending');
    const own = await owner.client.organization.listInvitations({
      query: { organizationId: organization.id },
    });
    assert.equal(own.error, null);
    assert.ok(own.data?.length);
    assert.ok(own.data?.every((invitation) => invitation.organizationId === organization.id));
    const listedB = await ownerB.client.organization.listInvitations();
    assert.deepEqual(
      listedB.data?.map(({ id }) => id),
      [invitationId],
      "B's owner lists B's (the active organization)",
    );
  });

  it('stops at 100 open invitations per organization', async () => {
    const busyOwner = await f.signedInUser();
    const busy = await f.organization(busyOwner);
    const em = api.orm.em.fork();
    for (let index = 0; index < 100; index += 1) {
      em.create(Invitation, {
        organization: busy.id,
        email: `bulk-${index}-${uniqueTag()}@example.com`,
        role: 'member',
        inviter: busyOwner.id,
        expiresAt: new Date(Date.now() + hour),
      });
    }
    await em.flush();
    const invitee = await f.signedInUser();
    assertRefused(
      await busyOwner.client.organization.inviteMember({
        email: invitee.email,
        role: 'member',
        organizationId: busy.id,
      }),
      403,
      'INVITATION_LIMIT_REACHED',
    );
  });

  it('takes on an invitation that has no workflow running: resend starts one, cancel applies', async () => {
    const invitee = await f.signedInUser();
    const em = api.orm.em.fork();
    const orphan = em.create(Invitation, {
      organization: organization.id,
      email: invitee.email,
      role: 'member',
      inviter: owner.id,
      expiresAt: new Date(Date.now() + hour),
    });
    await em.flush();
    const resent = await owner.client.organization.inviteMember({
      email: invitee.email,
      role: 'member',
      organizationId: organization.id,
      resend: true,
    });
    assert.equal(resent.data?.id, orphan.id);
    assert.ok(new Date(resent.data?.expiresAt ?? 0).getTime() > Date.now() + 47 * hour);
    await waitForMail({ to: invitee.email, subject: /invited to join/ });
    const workflow = temporal.workflow.getHandle(workflowIds.invitation(orphan.id));
    assert.equal((await workflow.describe()).status.name, 'RUNNING');

    const other = await f.signedInUser();
    const unmanaged = em.create(Invitation, {
      organization: organization.id,
      email: other.email,
      role: 'member',
      inviter: owner.id,
      expiresAt: new Date(Date.now() + hour),
    });
    await em.flush();
    const canceled = await owner.client.organization.cancelInvitation({
      invitationId: unmanaged.id,
    });
    assert.equal(canceled.data?.status, 'canceled');
    assert.equal((await f.storedInvitation(unmanaged.id)).status, 'canceled');
  });
});

describe('invitations and the membership limit', () => {
  let api: Api;
  after(() => api?.close());

  it('refuses to accept into a full organization', async () => {
    const config = loadRuntimeConfig();
    api = await startApi({ membershipLimit: 2, invitations: config.auth.invitations });
    const f = fixtures(api);
    const owner = await f.signedInUser('Owner');
    const colleague = await f.signedInUser();
    const invitee = await f.signedInUser();
    const organization = await f.organization(owner);
    const invitationId = await f.invite(owner, organization.id, invitee);
    const second = await f.invite(owner, organization.id, colleague);
    assert.equal(
      (await colleague.client.organization.acceptInvitation({ invitationId: second })).error,
      null,
    );
    assertRefused(
      await invitee.client.organization.acceptInvitation({ invitationId }),
      403,
      'ORGANIZATION_MEMBERSHIP_LIMIT_REACHED',
    );
    assert.equal((await f.storedInvitation(invitationId)).status, 'pending');
  });
});
