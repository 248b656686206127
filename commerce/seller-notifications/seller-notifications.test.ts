import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Member, User } from '../../db/entities/index.ts';
import { capturedMailsTo, extractLinks, waitForMail } from '../../integrations/mail/testing.ts';
import { testCards } from '../orders/testing.ts';
import { advanceTestClock, declinedRenewal, saveCard } from '../subscriptions/testing.ts';
import { callV1, createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';

/** Long enough for a second copy of a mail, if one were on its way, to arrive. */
const settleMs = 1500;

const started = /^Renewal failed: .+'s Team plan subscription is past due$/;
const recovered = /^Recovered: .+'s Team plan subscription is active again$/;
const failed = /^Payment failed: .+'s Team plan subscription is canceled$/;

describe('seller mails: owners and admins told when dunning starts and ends', () => {
  let api: TestApi;

  before(async () => {
    api = await startCommerceApi();
  });
  after(() => api.close());

  /** A seller whose organization also has an admin and a plain member: their addresses. */
  async function sellerWithTeam() {
    const seller = await createSeller(api);
    const em = api.orm.em.fork();
    const tag = randomBytes(4).toString('hex');
    const owner = await em.findOneOrFail(User, seller.ownerId);
    const join = (role: string) => {
      const user = em.create(User, { email: `${role}-${tag}@example.com`, name: role });
      em.create(Member, { organization: seller.organizationId, user, role });
      return user.email;
    };
    const admin = join('admin');
    const member = join('member');
    await em.flush();
    return { seller, owner: owner.email, admin, member };
  }

  const teamPlan = (seller: Seller) =>
    seller.polar.products.create({
      name: 'Team plan',
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount: 2900 }],
    });

  /** Exactly one mail with `subject` to each of `to`, once any second copy had time to come. */
  async function oneEach(to: string[], subject: RegExp) {
    for (const address of to) await waitForMail({ to: address, subject, timeoutMs: 30_000 });
    await sleep(settleMs);
    for (const address of to) {
      assert.equal((await capturedMailsTo(address, subject)).length, 1, `${subject} to ${address}`);
    }
  }

  /** Finance pays the failed renewal with a good card ("Retry now"). */
  async function recoverByFinance(seller: Seller, subscriptionId: string) {
    await saveCard(api, subscriptionId, testCards.visa);
    const retried = await callV1(
      api,
      seller.token,
      'POST',
      `/v1/subscriptions/${subscriptionId}/dunning/retry`,
    );
    assert.equal(retried.status, 200, JSON.stringify(retried.body));
  }

  it('a renewal declined, then paid: one “past due” and one “recovered” mail per owner and admin, none to members', async () => {
    const { seller, owner, admin, member } = await sellerWithTeam();
    const plan = await teamPlan(seller);
    const subscriptionId = await declinedRenewal(api, seller, plan.id, {
      startAt: '2027-05-01T08:00:00Z',
      renewAt: '2027-06-01T09:00:00Z',
    });
    await oneEach([owner, admin], started);
    const [startedMail] = await capturedMailsTo(owner, started);
    assert.ok(startedMail);
    assert.match(
      startedMail.text,
      /The \$29\.00 renewal of .+ was declined: The card has insufficient funds\./,
    );
    assert.match(startedMail.text, /tried again on June 3, 2027/);
    const link = `${api.config.api.publicUrl}/failed-renewals`;
    assert.ok(extractLinks(startedMail).includes(link), startedMail.text);
    assert.ok(startedMail.html.includes(`href="${link}"`), startedMail.html);

    await recoverByFinance(seller, subscriptionId);
    await oneEach([owner, admin], recovered);
    const [recoveredMail] = await capturedMailsTo(admin, recovered);
    assert.match(recoveredMail?.text ?? '', /Your team settled it\./);
    assert.deepEqual(await capturedMailsTo(member), []);
    // Still one “past due” each: the retry's own update announced no second start.
    for (const address of [owner, admin]) {
      assert.equal((await capturedMailsTo(address, started)).length, 1);
    }
  });

  it('dunning gives up: one “payment failed” mail per owner and admin', async () => {
    const { seller, owner, admin, member } = await sellerWithTeam();
    const plan = await teamPlan(seller);
    const subscriptionId = await declinedRenewal(api, seller, plan.id, {
      startAt: '2027-05-01T08:00:00Z',
      renewAt: '2027-06-01T09:00:00Z',
    });
    await oneEach([owner, admin], started);
    const { testClockId } = await callV1(
      api,
      seller.token,
      'GET',
      `/v1/subscriptions/${subscriptionId}`,
    ).then(({ body }) => ({ testClockId: body.test_clock_id as string }));
    // Past the last scheduled retry (21 days after the first failure).
    await advanceTestClock(api, seller, testClockId, '2027-06-25T09:00:00Z');
    await oneEach([owner, admin], failed);
    const [failedMail] = await capturedMailsTo(owner, failed);
    assert.match(failedMail?.text ?? '', /canceled for a failed payment/);
    assert.deepEqual(await capturedMailsTo(member), []);
  });

  it('sends none when the organization turned dunning notifications off', async () => {
    const { seller, owner, admin } = await sellerWithTeam();
    const updated = await callV1(
      api,
      seller.token,
      'PATCH',
      `/v1/organizations/${seller.organizationId}`,
      { notification_settings: { new_order: true, new_subscription: true, dunning: false } },
    );
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    assert.equal(updated.body.notification_settings.dunning, false);
    // Polar's SDK sends its two keys only: the setting stays as it was.
    const org = await seller.polar.organizations.update({
      id: seller.organizationId,
      organizationUpdate: { notificationSettings: { newOrder: false, newSubscription: true } },
    });
    assert.equal(org.notificationSettings.newOrder, false);
    const read = await callV1(
      api,
      seller.token,
      'GET',
      `/v1/organizations/${seller.organizationId}`,
    );
    assert.equal(read.body.notification_settings.dunning, false);

    const plan = await teamPlan(seller);
    const subscriptionId = await declinedRenewal(api, seller, plan.id, {
      startAt: '2027-05-01T08:00:00Z',
      renewAt: '2027-06-01T09:00:00Z',
    });
    const { customer } = await seller.polar.subscriptions.get({ id: subscriptionId });
    await recoverByFinance(seller, subscriptionId);
    // The customer's “active again” mail: the relay has read the recovery.
    await waitForMail({ to: customer.email, subject: /is active again$/, timeoutMs: 30_000 });
    await sleep(settleMs);
    assert.deepEqual(await capturedMailsTo(owner), []);
    assert.deepEqual(await capturedMailsTo(admin), []);
  });
});
