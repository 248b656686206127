import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { Order, OrderItem, Subscription } from '../../db/entities/index.ts';
import type { PendingSubscriptionItem } from '../../db/entities/subscription.ts';
import { eventually } from '../../devstack/eventually.ts';
import { buy, buyerDetails } from '../orders/testing.ts';
import { createSeller, type Seller, startCommerceApi, type TestApi } from '../testing.ts';
import { openRenewalOrder } from './lifecycle.ts';

// The in-process worker logs every workflow task at INFO; only problems are worth a line.
Runtime.install({ logger: new DefaultLogger('WARN') });

describe('opening a renewal order (openRenewalOrder)', () => {
  let api: TestApi;
  let seller: Seller;

  const em = () => api.orm.em.fork();

  const proration: PendingSubscriptionItem = {
    label: 'Remaining time on Pro',
    amount: 700,
    productPriceId: null,
  };

  const setPendingItems = (subscriptionId: string, pendingItems: PendingSubscriptionItem[]) =>
    em().nativeUpdate(Subscription, { id: subscriptionId }, { pendingItems });

  /**
   * A $15 monthly subscription, waiting for its renewal with a proration of $7 left by a plan
   * change, and the end of its first period (its first renewal's).
   */
  async function subscribed() {
    const product = await seller.polar.products.create({
      name: `Plan ${randomBytes(5).toString('hex')}`,
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount: 1500 }],
    });
    const { order } = await buy(api, seller, product.id, buyerDetails());
    assert.ok(order?.subscriptionId, 'the purchase started a subscription');
    const subscription = await em().findOneOrFail(Subscription, order.subscriptionId);
    await setPendingItems(subscription.id, [proration]);
    return { plan: product.name, subscription, periodEnd: subscription.currentPeriodEnd as Date };
  }

  /** The renewal order as written: its lines, its event(s) and what the subscription kept. */
  async function written(orderId: string, subscriptionId: string) {
    const db = em();
    const [order, items, events, subscription] = await Promise.all([
      db.findOneOrFail(Order, orderId),
      db.find(OrderItem, { order: orderId }, { orderBy: { amount: 'desc' } }),
      db.execute<{ total_amount: number }[]>(
        `select (data ->> 'total_amount')::int as total_amount from outbox_events
         where type = 'order.created' and data ->> 'id' = ?`,
        [orderId],
      ),
      db.findOneOrFail(Subscription, subscriptionId),
    ]);
    return {
      total: order.totalAmount,
      status: order.status,
      items: items.map(({ label, amount, proration }) => [label, amount, proration]),
      eventTotals: events.map((event) => event.total_amount),
      pendingItems: subscription.pendingItems,
    };
  }

  before(async () => {
    api = await startCommerceApi();
    seller = await createSeller(api);
  });
  after(() => api.close());

  it('writes the order, its items and its event once when two runs of the step open it at once', async () => {
    const { plan, subscription, periodEnd } = await subscribed();

    const [first, second] = await Promise.all([
      openRenewalOrder(em(), subscription.id, periodEnd),
      openRenewalOrder(em(), subscription.id, periodEnd),
    ]);
    assert.equal(second.orderId, first.orderId);
    assert.deepEqual([first.status, first.amountToCharge], ['pending', 2200]);
    assert.deepEqual(await written(first.orderId, subscription.id), {
      total: 2200,
      status: 'pending',
      items: [
        [plan, 1500, false],
        ['Remaining time on Pro', 700, true],
      ],
      eventTotals: [2200],
      pendingItems: [],
    });
  });

  it('reads the renewal again when the subscription changes between its reading and its write', async () => {
    const { plan, subscription, periodEnd } = await subscribed();
    const secondChange: PendingSubscriptionItem = {
      label: 'Unused time on Basic',
      amount: -300,
      productPriceId: null,
    };
    // A plan change holds the subscription's row while the renewal is read and priced, and
    // commits a second proration once the renewal's write waits for the row.
    const { opening } = await em().transactional(async (planChange) => {
      await planChange.execute('select 1 from subscriptions where id = ? for update', [
        subscription.id,
      ]);
      const opening = openRenewalOrder(em(), subscription.id, periodEnd);
      await eventually(
        () =>
          em().execute<{ waiting: number }[]>(
            `select count(*)::int as waiting from pg_stat_activity
             where wait_event_type = 'Lock' and query like '%taken_over as%'`,
          ),
        ([row]) => row?.waiting === 1,
        { what: "the renewal's write waiting for the plan change" },
      );
      await planChange.execute('update subscriptions set pending_items = ? where id = ?', [
        JSON.stringify([proration, secondChange]),
        subscription.id,
      ]);
      // Not awaited inside: the renewal's write waits for this transaction to commit.
      return { opening };
    });
    const renewal = await opening;

    assert.equal(renewal.amountToCharge, 1900);
    assert.deepEqual(await written(renewal.orderId, subscription.id), {
      total: 1900,
      status: 'pending',
      items: [
        [plan, 1500, false],
        ['Remaining time on Pro', 700, true],
        ['Unused time on Basic', -300, true],
      ],
      eventTotals: [1900],
      pendingItems: [],
    });
  });
});
