import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { organizationMessages } from '../accounts/organization/errors.ts';
import { browserAuthClient } from '../api/auth/testing.ts';
import { startApiServer } from '../api/server.ts';
import { loadRuntimeConfig } from '../config/env.ts';
import { Invitation, Member, Organization, User } from '../db/entities/index.ts';
import { readCapturedMails } from '../integrations/mail/captured-mail.ts';
import { waitForMail } from '../integrations/mail/testing.ts';
import { workflowIds } from '../processes/workflow-ids.ts';
import { connectTemporal } from '../temporal/client.ts';
import { workersOnOwnQueue } from '../temporal/testing.ts';
import { invitation as invitationWorkflow } from './invitation.ts';

// The in-process workers log every workflow task at INFO; only problems are worth a line.
Runtime.install({ logger: new DefaultLogger('WARN') });

const password = 'correct horse battery';
const uniqueTag = () => randomBytes(5).toString('hex');
const second = 1000;

type Api = Awaited<ReturnType<typeof startApiServer>>;

/** The API with invitations living `lifetimeSeconds`, reminded `reminderSeconds` before. */
function startApi(lifetimeSeconds: number, reminderSeconds: number): Promise<Api> {
  const config = loadRuntimeConfig();
  return startApiServer(
    {
      ...config,
      auth: {
        ...config.auth,
        invitations: { ...config.auth.invitations, lifetimeSeconds, reminderSeconds },
      },
    },
    { host: '127.0.0.1', port: 0 },
  );
}

/** A signed-in user whose email is verified: an invitee must own the invited address. */
async function signedInUser(api: Api) {
  const browser = browserAuthClient(api.url, new URL(api.config.api.publicUrl).origin);
  const email = `invitation-workflow-${uniqueTag()}@example.com`;
  const { data, error } = await browser.client.signUp.email({ email, password, name: 'Someone' });
  assert.equal(error, null);
  const id = data?.user.id ?? '';
  await api.orm.em.fork().nativeUpdate(User, { id }, { emailVerified: true });
  return { ...browser, email, id };
}
type Someone = Awaited<ReturnType<typeof signedInUser>>;

/** An owner with an organization, inviting a fresh user through the API. */
async function invitationThroughApi(api: Api) {
  const owner = await signedInUser(api);
  const invitee = await signedInUser(api);
  const created = await owner.client.organization.create({
    name: `Workflow ${uniqueTag()}`,
    slug: `workflow-${uniqueTag()}`,
  });
  assert.equal(created.error, null);
  const invited = await owner.client.organization.inviteMember({
    email: invitee.email,
    role: 'member',
    organizationId: created.data?.id ?? '',
  });
  assert.equal(invited.error, null);
  const id = invited.data?.id ?? '';
  const expiresAt = new Date(invited.data?.expiresAt ?? 0);
  return { owner, invitee, id, expiresAt };
}

/** The names of the activities a finished workflow ran, in order. */
async function activitiesRun(temporal: Client, invitationId: string): Promise<string[]> {
  const history = await temporal.workflow
    .getHandle(workflowIds.invitation(invitationId))
    .fetchHistory();
  return (history.events ?? []).flatMap((event) => {
    const name = event.activityTaskScheduledEventAttributes?.activityType?.name;
    return name ? [name] : [];
  });
}

const receivedAt = (mail: { receivedAt: string }) => Date.parse(mail.receivedAt);

describe('the invitation workflow against the Temporal dev server', { concurrency: true }, () => {
  let temporal: Client;
  // Invitations live 20 s and are reminded 10 s before they expire: short for a test, wide
  // enough that a loaded CI machine still answers, reminds and expires in order.
  let shortLived: Api;

  before(async () => {
    temporal = await connectTemporal(loadRuntimeConfig().temporal);
    shortLived = await startApi(20, 10);
  });
  after(async () => {
    await temporal.connection.close();
    await shortLived.close();
  });

  const result = (invitationId: string) =>
    temporal.workflow.getHandle(workflowIds.invitation(invitationId)).result();

  it('accepted before expiry: the workflow ends with the answer, without reminder or notice', async () => {
    const { invitee, id } = await invitationThroughApi(shortLived);
    await waitForMail({ to: invitee.email, subject: /invited to join/ });
    const accepted = await invitee.client.organization.acceptInvitation({ invitationId: id });
    assert.equal(accepted.error, null);
    assert.equal(await result(id), 'accepted');
    assert.deepEqual(await activitiesRun(temporal, id), [
      'invitationMail',
      'sendEmail',
      'answerInvitation',
    ]);
  });

  it('canceled: the workflow ends, the invitee can no longer accept', async () => {
    const { owner, invitee, id } = await invitationThroughApi(shortLived);
    const canceled = await owner.client.organization.cancelInvitation({ invitationId: id });
    assert.equal(canceled.data?.status, 'canceled');
    assert.equal(await result(id), 'canceled');
    const late = await invitee.client.organization.acceptInvitation({ invitationId: id });
    assert.equal(
      (late.error as { message?: string }).message,
      organizationMessages.INVITATION_NOT_FOUND,
    );
    const ran = await activitiesRun(temporal, id);
    assert.ok(ran.includes('answerInvitation'));
    assert.ok(!ran.includes('expireInvitation'), 'no expiry after a cancel');
    assert.ok(ran.filter((name) => name === 'sendEmail').length <= 1, 'no reminder');
  });

  it('expires on time: the reminder, then the mail to the inviter; answers are refused after', async () => {
    const { owner, invitee, id, expiresAt } = await invitationThroughApi(shortLived);
    const reminder = await waitForMail({
      to: invitee.email,
      subject: /^Reminder/,
      timeoutMs: 25_000,
    });
    const remindAt = expiresAt.getTime() - 10 * second;
    assert.ok(receivedAt(reminder) >= remindAt, 'not before its time');
    assert.ok(receivedAt(reminder) < expiresAt.getTime(), 'before the expiry');
    const notice = await waitForMail({ to: owner.email, subject: /expired/, timeoutMs: 30_000 });
    assert.ok(notice.text.includes(invitee.email));
    assert.ok(receivedAt(notice) >= expiresAt.getTime(), 'not before the expiry');
    assert.ok(receivedAt(notice) < expiresAt.getTime() + 8 * second, 'promptly after it');
    assert.equal(await result(id), 'expired');

    const accepted = await invitee.client.organization.acceptInvitation({ invitationId: id });
    assert.equal((accepted.error as { status?: number }).status, 400);
    assert.equal((accepted.error as { message?: string }).message, 'Invitation not found');
    const rejected = await invitee.client.organization.rejectInvitation({ invitationId: id });
    assert.equal((rejected.error as { message?: string }).message, 'Invitation not found!');
    const stored = await shortLived.orm.em.fork().findOneOrFail(Invitation, { id });
    assert.equal(stored.status, 'pending', 'Better Auth keeps an expired invitation pending');
    assert.ok(stored.expiresAt <= new Date());
    // Its workflow has ended; the owner can still cancel it, as in Better Auth.
    const canceled = await owner.client.organization.cancelInvitation({ invitationId: id });
    assert.equal(canceled.error, null);
    assert.equal(canceled.data?.status, 'canceled');
  });

  it('sends no reminder when the invitation lives shorter than the reminder lead', async () => {
    const api = await startApi(2, 10);
    try {
      const { owner, id } = await invitationThroughApi(api);
      await waitForMail({ to: owner.email, subject: /expired/, timeoutMs: 10_000 });
      assert.equal(await result(id), 'expired');
      assert.deepEqual(await activitiesRun(temporal, id), [
        'invitationMail',
        'sendEmail',
        'expireInvitation',
        'sendEmail',
      ]);
    } finally {
      await api.close();
    }
  });

  it('survives a worker restart while pending: it resumes and still expires on time', async () => {
    const workers = await workersOnOwnQueue(shortLived, 'invitation-restart');
    const { taskQueue } = workers;

    // The invitation is written as invite-member writes it; its workflow runs on this test's
    // own task queue, which only the workers below poll.
    const owner: Someone = await signedInUser(shortLived);
    const invitee = `restart-${uniqueTag()}@example.com`;
    const em = shortLived.orm.em.fork();
    const organization = em.create(Organization, {
      name: 'Restart',
      slug: `restart-${uniqueTag()}`,
    });
    em.create(Member, { organization, user: owner.id, role: 'owner' });
    const expiresAt = new Date(Date.now() + 40 * second);
    const pending = em.create(Invitation, {
      organization,
      email: invitee,
      role: 'member',
      inviter: owner.id,
      expiresAt,
    });
    await em.flush();

    const original = await workers.start();
    const handle = await temporal.workflow.start(invitationWorkflow, {
      workflowId: workflowIds.invitation(pending.id),
      taskQueue,
      args: [
        {
          invitationId: pending.id,
          expiresAt: expiresAt.toISOString(),
          remindBeforeSeconds: 30,
          acceptUrl: `https://tollgate.example/accept-invitation/${pending.id}`,
        },
      ],
    });
    await waitForMail({ to: invitee, subject: /invited to join/ });
    await original.stop();

    // The reminder falls due with no worker polling: nothing can send it...
    // The reminder falls due 30 s before expiry; the new worker comes 25 s before it. The margin
    // covers a workflow task handed to the stopped worker's last poll, which Temporal offers
    // again only after the task's 10 s timeout.
    await sleep(Math.max(expiresAt.getTime() - 25 * second - Date.now(), 0));
    const mailsTo = async (to: string) =>
      (await readCapturedMails(process.env.MAIL_CAPTURE_DIR ?? '')).filter((mail) =>
        mail.to.includes(to),
      );
    assert.equal((await mailsTo(invitee)).length, 1, 'only the invitation so far');

    // ...until a new worker picks the workflow up from its history.
    const restarted = await workers.start();
    try {
      const reminder = await waitForMail({ to: invitee, subject: /^Reminder/, timeoutMs: 24_000 });
      assert.ok(receivedAt(reminder) < expiresAt.getTime());
      const notice = await waitForMail({ to: owner.email, subject: /expired/, timeoutMs: 30_000 });
      assert.ok(receivedAt(notice) >= expiresAt.getTime(), 'not before the expiry');
      assert.ok(receivedAt(notice) < expiresAt.getTime() + 8 * second, 'on time');
      assert.equal(await handle.result(), 'expired');
    } finally {
      await restarted.stop();
      await workers.close();
    }
  });
});
