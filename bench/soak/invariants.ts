/**
 * What must hold after any run of the stack, however its parts failed meanwhile (issue 21): read
 * from the tables (SQL, bound parameters), from Stripe's side as the Stripe simulator keeps it,
 * from Temporal, and from what webhook receivers recorded. The soak (bench/soak.ts) checks them
 * after its traffic and faults; a backup test can check them after a restore.
 *
 *   const results = await runInvariants({ databaseUrl, stripeSimulatorUrl, temporal });
 *   const violations = results.flatMap((result) => result.violations);
 *
 * Each check reads settled state: call it once the traffic stopped and the stack drained.
 */
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import {
  contributedValueSql,
  contributesToSql,
  meterEventConditions,
} from '../../commerce/meters/usage-sql.ts';
import { Meter } from '../../db/entities/index.ts';
import { openOrm } from '../../db/orm.ts';
import { sql, sqlText } from '../../db/sql.ts';

/** One broken rule, with the ids to investigate. */
export interface Violation {
  invariant: string;
  detail: string;
  ids: Record<string, string>;
}

/** One rule checked: whether it held, and where not. */
export interface InvariantResult {
  invariant: string;
  /** False when the run lacked what the rule reads (no simulator, no receivers…). */
  checked: boolean;
  violations: Violation[];
  /** What the check saw that breaks no promise but is worth reading. */
  notes: string[];
}

/** A webhook request a receiver took, in the order it arrived at that receiver. */
export interface WebhookReceipt {
  /** The endpoint's URL as registered with Tollgate. */
  url: string;
  /** The `webhook-id` header: the webhook event's id. */
  webhookId: string;
  /** The body as received (or a digest of it): a redelivery sends the same bytes. */
  body: string;
  /** What the receiver answered (2xx: accepted); undefined when it never answered (hung, down). */
  status?: number;
  /** Whether its Standard Webhooks signature verified with the endpoint's secret, if checked. */
  signatureValid?: boolean;
}

export interface InvariantInputs {
  databaseUrl: string;
  /** The Stripe simulator (its `/v1` answers Stripe's side); unset skips the Stripe checks. */
  stripeSimulatorUrl?: string;
  /** Any `sk_test_…` key stripe-mock accepts. */
  stripeSecretKey?: string;
  /** Unset skips the stuck-workflow check. */
  temporal?: Client;
  /** What the receivers recorded; unset skips the delivery-order check. */
  webhookReceipts?: WebhookReceipt[];
  /**
   * Endpoints expected to have taken every event by now (receivers up at the end); other
   * endpoints may still hold undelivered events (down, or disabled after failures).
   */
  deliveredEndpointUrls?: string[];
  /** The events whose ingestion was acknowledged: each is stored exactly once. */
  acknowledgedEvents?: { organizationId: string; externalIds: string[] };
  /** The API, to compare the customer state it answers with a recomputation from the tables. */
  api?: { url: string; token: string; customerSample?: number };
  /** The invitations whose fate the traffic knows; unset, only the tables' own rules are checked. */
  invitationFates?: InvitationFates;
  /** The checkouts whose buyers met 3-D Secure; unset skips that check. */
  threeDSecureCheckouts?: ThreeDSecureCheckouts;
}

/** The invitations by what became of them (bench/soak/traffic.ts's invitations lane). */
export interface InvitationFates {
  accepted: string[];
  /** Canceled by the owner before the invitee tried to accept. */
  canceled: string[];
  /** Left until they expired before the invitee tried to accept. */
  expired: string[];
}

/** The 3-D Secure checkouts by what their buyers did: paid once, or left unpaid for good. */
export interface ThreeDSecureCheckouts {
  paid: string[];
  abandoned: string[];
}

type Row = Record<string, unknown>;
const text = (value: unknown) => (value === null || value === undefined ? '' : String(value));

/** Every invariant, in the order they are reported. */
export const invariantNames = [
  'exactly one succeeded charge per paid order',
  'no order paid twice',
  'no PaymentIntent without its order',
  'refunds never exceed their order',
  'each 3-D Secure checkout paid once, abandoned ones never',
  'discount redemptions equal successful uses',
  'every renewal period billed once',
  'every ingested event counted once',
  'meter rollups equal a recount',
  'webhooks delivered in order per endpoint',
  'every outbox event delivered to every subscribed endpoint',
  'each accepted invitation made exactly one membership',
  'no invitation accepted after cancel or expiry',
  'no workflow stuck',
  'no checkout left confirmed without an outcome',
  'customer state equals a recomputation',
] as const;
export type InvariantName = (typeof invariantNames)[number];

export async function runInvariants(inputs: InvariantInputs): Promise<InvariantResult[]> {
  const orm = await openOrm(inputs.databaseUrl);
  try {
    const em = orm.em.fork();
    const query = (statement: string, params: unknown[] = []) =>
      em.getConnection().execute<Row[]>(statement, params);
    const results: InvariantResult[] = [];
    const check = async (
      invariant: InvariantName,
      run: (notes: string[]) => Promise<Omit<Violation, 'invariant'>[] | undefined>,
    ) => {
      const notes: string[] = [];
      try {
        const found = await run(notes);
        results.push({
          invariant,
          checked: found !== undefined,
          violations: (found ?? []).map((violation) => ({ invariant, ...violation })),
          notes,
        });
      } catch (error) {
        results.push({
          invariant,
          checked: true,
          violations: [{ invariant, detail: `the check itself failed: ${String(error)}`, ids: {} }],
          notes,
        });
      }
    };

    await check('exactly one succeeded charge per paid order', async () => {
      // An order the balance or a 100% discount paid whole has no charge.
      const rows = await query(
        `select o.id as order_id, o.status, o.total_amount - o.from_balance_amount as due,
           count(p.id) filter (where p.status = 'succeeded') as charges,
           coalesce(sum(p.amount) filter (where p.status = 'succeeded'), 0) as charged
         from orders o left join payments p on p.order_id = o.id
         group by o.id
         having (o.status in ('paid', 'refunded', 'partially_refunded')
             and o.total_amount - o.from_balance_amount > 0
             and (count(p.id) filter (where p.status = 'succeeded') <> 1
               or coalesce(sum(p.amount) filter (where p.status = 'succeeded'), 0)
                 <> o.total_amount - o.from_balance_amount))
           or (o.status = 'pending' and count(p.id) filter (where p.status = 'succeeded') > 0)`,
      );
      return rows.map((row) => ({
        detail: `order ${text(row.status)}, due ${text(row.due)}: ${text(row.charges)} succeeded charges of ${text(row.charged)} in all`,
        ids: { order: text(row.order_id) },
      }));
    });

    // Stripe's side: every PaymentIntent the simulator holds, newest first.
    const intents = inputs.stripeSimulatorUrl
      ? await listPaymentIntents(inputs.stripeSimulatorUrl, inputs.stripeSecretKey)
      : undefined;
    const succeededIntents = intents?.filter((intent) => intent.status === 'succeeded');

    await check('no order paid twice', async () => {
      const violations: Omit<Violation, 'invariant'>[] = [];
      // In the tables: a checkout or an order with more than one succeeded payment.
      const twice = await query(
        `select coalesce(order_id::text, '') as order_id, coalesce(checkout_id::text, '') as checkout_id,
           count(*) as charges
         from payments where status = 'succeeded'
         group by grouping sets ((order_id), (checkout_id))
         having count(*) > 1 and (order_id is not null or checkout_id is not null)`,
      );
      for (const row of twice) {
        violations.push({
          detail: `${text(row.charges)} succeeded payments`,
          ids: row.order_id ? { order: text(row.order_id) } : { checkout: text(row.checkout_id) },
        });
      }
      // At Stripe: two succeeded PaymentIntents for one checkout or one order.
      if (succeededIntents) {
        const paymentOrders = new Map(
          (
            await query(
              `select processor_id, order_id from payments where processor_id is not null`,
            )
          ).map((row) => [text(row.processor_id), text(row.order_id)]),
        );
        const byKey = new Map<string, string[]>();
        for (const intent of succeededIntents) {
          const checkoutId = intent.metadata?.checkout_id;
          const orderId = paymentOrders.get(intent.id);
          for (const key of [
            checkoutId && `checkout ${checkoutId}`,
            orderId && `order ${orderId}`,
          ]) {
            if (key) byKey.set(key, [...(byKey.get(key) ?? []), intent.id]);
          }
        }
        for (const [key, ids] of byKey) {
          if (ids.length < 2) continue;
          const [kind, id] = key.split(' ') as [string, string];
          violations.push({
            detail: `${ids.length} succeeded PaymentIntents at Stripe`,
            ids: { [kind]: id, paymentIntents: ids.join(',') },
          });
        }
      }
      return violations;
    });

    await check('no PaymentIntent without its order', async () => {
      if (!intents || !succeededIntents) return undefined;
      const violations: Omit<Violation, 'invariant'>[] = [];
      const payments = new Map(
        (
          await query(
            `select id, processor_id, status, order_id from payments where processor_id is not null`,
          )
        ).map((row) => [text(row.processor_id), row]),
      );
      for (const intent of succeededIntents) {
        const payment = payments.get(intent.id);
        if (payment?.status !== 'succeeded' || !payment.order_id) {
          violations.push({
            detail: payment
              ? `Stripe charged; the payment is ${text(payment.status)}${payment.order_id ? '' : ' without an order'}`
              : 'Stripe charged; no payment row names this PaymentIntent',
            ids: {
              paymentIntent: intent.id,
              payment: text(payment?.id ?? intent.metadata?.payment_id),
            },
          });
        }
      }
      const atStripe = new Map(intents.map((intent) => [intent.id, intent.status]));
      for (const [processorId, payment] of payments) {
        if (payment.status === 'succeeded' && atStripe.get(processorId) !== 'succeeded') {
          violations.push({
            detail: `the payment succeeded; Stripe's PaymentIntent is ${atStripe.get(processorId) ?? 'missing'}`,
            ids: { payment: text(payment.id), paymentIntent: processorId },
          });
        }
      }
      return violations;
    });

    await check('each 3-D Secure checkout paid once, abandoned ones never', async () => {
      const checkouts = inputs.threeDSecureCheckouts;
      if (!checkouts) return undefined;
      const violations: Omit<Violation, 'invariant'>[] = [];
      const all = [...checkouts.paid, ...checkouts.abandoned];
      if (all.length === 0) return violations;
      const rows = await query(
        `select c.id, c.status,
           (select count(*) from orders o where o.checkout_id = c.id) as orders,
           (select count(*) from payments p where p.checkout_id = c.id and p.status = 'succeeded')
             as payments
         from checkouts c where c.id in (?)`,
        [all],
      );
      const stored = new Map(rows.map((row) => [text(row.id), row]));
      const intentsOf = (checkoutId: string) =>
        succeededIntents?.filter((intent) => intent.metadata?.checkout_id === checkoutId).length;
      for (const [ids, paid] of [
        [checkouts.paid, true],
        [checkouts.abandoned, false],
      ] as const) {
        const expected = paid ? 1 : 0;
        for (const id of ids) {
          const row = stored.get(id);
          const found = {
            status: text(row?.status),
            orders: Number(row?.orders ?? 0),
            payments: Number(row?.payments ?? 0),
            atStripe: intentsOf(id) ?? expected,
          };
          if (
            (found.status === 'succeeded') !== paid ||
            found.orders !== expected ||
            found.payments !== expected ||
            found.atStripe !== expected
          ) {
            violations.push({
              detail: `${paid ? 'paid' : 'abandoned'}: ${found.status || 'missing'}, ${found.orders} orders, ${found.payments} succeeded payments, ${found.atStripe} succeeded PaymentIntents at Stripe`,
              ids: { checkout: id },
            });
          }
        }
      }
      return violations;
    });

    await check('refunds never exceed their order', async () => {
      const violations: Omit<Violation, 'invariant'>[] = [];
      const rows = await query(
        `select o.id as order_id, o.status, o.net_amount, o.tax_amount, o.refunded_amount,
           o.refunded_tax_amount,
           coalesce(sum(r.amount) filter (where r.status = 'succeeded'), 0) as succeeded_amount,
           coalesce(sum(r.tax_amount) filter (where r.status = 'succeeded'), 0) as succeeded_tax,
           coalesce(sum(r.amount) filter (where r.status in ('succeeded', 'pending')), 0) as held_amount
         from orders o join refunds r on r.order_id = o.id
         group by o.id`,
      );
      for (const row of rows) {
        const ids = { order: text(row.order_id) };
        const [net, tax, refunded, refundedTax, succeeded, succeededTax, held] = [
          row.net_amount,
          row.tax_amount,
          row.refunded_amount,
          row.refunded_tax_amount,
          row.succeeded_amount,
          row.succeeded_tax,
          row.held_amount,
        ].map(Number) as [number, number, number, number, number, number, number];
        if (held > net) violations.push({ detail: `refunds of ${held} on a net ${net}`, ids });
        if (succeededTax > tax) {
          violations.push({ detail: `tax refunds of ${succeededTax} on a tax ${tax}`, ids });
        }
        if (refunded !== succeeded || refundedTax !== succeededTax) {
          violations.push({
            detail: `the order says ${refunded} (+${refundedTax} tax) refunded; its succeeded refunds sum to ${succeeded} (+${succeededTax})`,
            ids,
          });
        }
        const status =
          succeeded === 0 ? 'paid' : succeeded >= net ? 'refunded' : 'partially_refunded';
        if (row.status !== status) {
          violations.push({ detail: `status ${text(row.status)}, refunds say ${status}`, ids });
        }
      }
      if (inputs.stripeSimulatorUrl) {
        // What a refund gives back to the customer's balance never reaches Stripe.
        const refunds = await query(
          `select id, status, amount + tax_amount - to_balance_amount as total, processor_id from refunds
           where processor_id is not null`,
        );
        for (const refund of refunds) {
          const atStripe = await stripeGet(
            inputs.stripeSimulatorUrl,
            inputs.stripeSecretKey,
            `/v1/refunds/${encodeURIComponent(text(refund.processor_id))}`,
          );
          const ids = { refund: text(refund.id), stripeRefund: text(refund.processor_id) };
          if (!atStripe) {
            violations.push({ detail: 'Stripe knows no such refund', ids });
            continue;
          }
          if (Number(atStripe.amount) !== Number(refund.total)) {
            violations.push({
              detail: `Stripe refunded ${text(atStripe.amount)}; the refund is of ${text(refund.total)}`,
              ids,
            });
          }
          if (['succeeded', 'failed', 'canceled'].includes(text(atStripe.status))) {
            if (atStripe.status !== refund.status) {
              violations.push({
                detail: `Stripe says ${text(atStripe.status)}; the refund is ${text(refund.status)}`,
                ids,
              });
            }
          }
        }
      }
      return violations;
    });

    await check('discount redemptions equal successful uses', async () => {
      // Discounts applied to a subscription by a plan change count a redemption without a row.
      const counts = await query(
        `select d.id as discount_id, d.redemptions_count,
           (select count(*) from discount_redemptions r where r.discount_id = d.id) as redemptions,
           (select count(*) from subscriptions s where s.discount_id = d.id
             and not exists (select 1 from checkouts c where c.subscription_id = s.id
               and c.discount_id = d.id)) as applied_by_changes
         from discounts d`,
      );
      const violations: Omit<Violation, 'invariant'>[] = counts
        .filter(
          (row) =>
            Number(row.redemptions_count) < Number(row.redemptions) ||
            Number(row.redemptions_count) >
              Number(row.redemptions) + Number(row.applied_by_changes),
        )
        .map((row) => ({
          detail: `redemptions_count ${text(row.redemptions_count)}, ${text(row.redemptions)} redemptions by checkouts`,
          ids: { discount: text(row.discount_id) },
        }));
      const held = await query(
        `select r.discount_id, c.id as checkout_id, c.status from discount_redemptions r
         join checkouts c on c.id = r.checkout_id where c.status in ('failed', 'expired')`,
      );
      for (const row of held) {
        violations.push({
          detail: `a ${text(row.status)} checkout still holds its redemption`,
          ids: { discount: text(row.discount_id), checkout: text(row.checkout_id) },
        });
      }
      const unredeemed = await query(
        `select c.id as checkout_id, c.discount_id from checkouts c
         where c.status = 'succeeded' and c.discount_id is not null
           and not exists (select 1 from discount_redemptions r where r.checkout_id = c.id)`,
      );
      for (const row of unredeemed) {
        violations.push({
          detail: 'a succeeded checkout used the discount without a redemption',
          ids: { discount: text(row.discount_id), checkout: text(row.checkout_id) },
        });
      }
      return violations;
    });

    await check('every renewal period billed once', async () => {
      // A monthly subscription without a trial has been renewed once per month between its
      // start and its current period's start: one paid renewal order each, and at most one
      // unpaid one (the renewal in dunning).
      const rows = await query(
        `select s.id as subscription_id, s.status,
           (extract(year from age(s.current_period_start, s.started_at)) * 12
             + extract(month from age(s.current_period_start, s.started_at)))::int as periods,
           count(o.id) filter (where o.status in ('paid', 'refunded', 'partially_refunded')) as paid,
           count(o.id) filter (where o.status = 'pending') as unpaid
         from subscriptions s
         left join orders o on o.subscription_id = s.id and o.billing_reason = 'subscription_cycle'
         where s.recurring_interval = 'month' and s.trial_start is null and s.started_at is not null
         group by s.id`,
      );
      return rows
        .filter((row) => Number(row.paid) !== Number(row.periods) || Number(row.unpaid) > 1)
        .map((row) => ({
          detail: `${text(row.status)}: ${text(row.periods)} periods renewed, ${text(row.paid)} paid and ${text(row.unpaid)} unpaid renewal orders`,
          ids: { subscription: text(row.subscription_id) },
        }));
    });

    await check('every ingested event counted once', async () => {
      const violations: Omit<Violation, 'invariant'>[] = (
        await query(
          `select organization_id, external_id, count(*) as copies from events
           where external_id is not null group by organization_id, external_id having count(*) > 1`,
        )
      ).map((row) => ({
        detail: `stored ${text(row.copies)} times`,
        ids: { organization: text(row.organization_id), externalId: text(row.external_id) },
      }));
      const acknowledged = inputs.acknowledgedEvents;
      if (acknowledged && acknowledged.externalIds.length > 0) {
        const stored = new Set(
          (
            await query(
              'select external_id from events where organization_id = ? and external_id in (?)',
              [acknowledged.organizationId, acknowledged.externalIds],
            )
          ).map((row) => text(row.external_id)),
        );
        for (const externalId of acknowledged.externalIds) {
          if (!stored.has(externalId)) {
            violations.push({ detail: 'acknowledged, never stored', ids: { externalId } });
          }
        }
      }
      return violations;
    });

    await check('meter rollups equal a recount', async () => {
      const violations: Omit<Violation, 'invariant'>[] = [];
      const meters = await em.find(Meter, { archivedAt: null }, { populate: ['organization'] });
      const hour = sqlText(
        `date_trunc('hour', e."timestamp" at time zone 'UTC') at time zone 'UTC'`,
      );
      for (const meter of meters) {
        // What rebuildMeterRollups (commerce/meters/rollups.ts) would write, against what is.
        const statement = sql`with recount as (
            select e.customer_id, ${hour} as hour, count(*) as event_count,
              coalesce(sum(x.v), 0) as sum_value
            from events e cross join lateral (select ${contributedValueSql(meter.aggregation)} as v) x
            where ${meterEventConditions(meter, sqlText(`'-infinity'`), sqlText(`'infinity'`), [
              sqlText('e.customer_id is not null'),
              contributesToSql(meter.aggregation),
            ])}
            group by e.customer_id, ${hour}),
          rollup as (select customer_id, hour, event_count, sum_value from meter_usage_hours
            where meter_id = ${meter.id})
          select coalesce(r.customer_id, u.customer_id) as customer_id, coalesce(r.hour, u.hour) as hour,
            r.event_count as recounted, u.event_count as rolled_up,
            r.sum_value as recounted_sum, u.sum_value as rolled_up_sum
          from recount r full join rollup u on u.customer_id = r.customer_id and u.hour = r.hour
          where r.event_count is distinct from u.event_count
            or r.sum_value is distinct from u.sum_value`;
        for (const row of await query(statement.sql, statement.params)) {
          violations.push({
            detail: `hour ${text(row.hour)}: ${text(row.recounted ?? 0)} events (sum ${text(row.recounted_sum ?? 0)}) recounted, ${text(row.rolled_up ?? 0)} (sum ${text(row.rolled_up_sum ?? 0)}) rolled up`,
            ids: { meter: meter.id, customer: text(row.customer_id) },
          });
        }
      }
      return violations;
    });

    await check('webhooks delivered in order per endpoint', async (notes) => {
      if (!inputs.webhookReceipts) return undefined;
      const violations: Omit<Violation, 'invariant'>[] = [];
      const endpoints = await query('select id, url from webhook_endpoints');
      for (const endpoint of endpoints) {
        const url = text(endpoint.url);
        const ids = { endpoint: text(endpoint.id) };
        // The endpoint's events in the order they were emitted, each with what it is about.
        const queued = await query(
          `select e.id, e.succeeded, coalesce(o.data->>'id', '') as subject
           from webhook_events e left join outbox_events o on o.id = e.outbox_event_id
           where e.endpoint_id = ? order by e.created_at, e.id`,
          [endpoint.id],
        );
        const position = new Map(queued.map((row, index) => [text(row.id), index]));
        const subjectOf = new Map(queued.map((row) => [text(row.id), text(row.subject)]));
        const received = inputs.webhookReceipts.filter((receipt) => receipt.url === url);
        const firstBody = new Map<string, string>();
        // The furthest event delivered so far: of each resource, and of any.
        const furthestOf = new Map<string, number>();
        let furthest = -1;
        let reorderedAcrossResources = 0;
        for (const receipt of received) {
          if (receipt.signatureValid === false) {
            violations.push({
              detail: 'a delivery whose signature did not verify',
              ids: { ...ids, webhookEvent: receipt.webhookId },
            });
          }
          const at = position.get(receipt.webhookId);
          if (at === undefined) {
            violations.push({
              detail: 'received an event the endpoint never queued',
              ids: { ...ids, webhookEvent: receipt.webhookId },
            });
            continue;
          }
          const body = firstBody.get(receipt.webhookId);
          if (body === undefined) {
            // A first delivery comes after the first delivery of every earlier event about the
            // same resource (a subscription's changes in the order they were made).
            const subject = subjectOf.get(receipt.webhookId) ?? '';
            const subjectFurthest = furthestOf.get(subject) ?? -1;
            if (at < subjectFurthest) {
              violations.push({
                detail: `event #${at + 1} of resource ${subject} first arrived after its event #${subjectFurthest + 1}`,
                ids: { ...ids, webhookEvent: receipt.webhookId },
              });
            } else if (at < furthest) {
              reorderedAcrossResources += 1;
            }
            furthestOf.set(subject, Math.max(subjectFurthest, at));
            furthest = Math.max(furthest, at);
            firstBody.set(receipt.webhookId, receipt.body);
          } else if (body !== receipt.body) {
            violations.push({
              detail: 'a redelivery sent other bytes than the first delivery',
              ids: { ...ids, webhookEvent: receipt.webhookId },
            });
          }
        }
        if (reorderedAcrossResources > 0) {
          // Transactions about different resources commit in any order: an event emitted
          // (timestamped) earlier may commit, and so be relayed and sent, after a later one.
          notes.push(
            `endpoint ${text(endpoint.id)}: ${reorderedAcrossResources} events arrived after a later-stamped event about another resource (committed later)`,
          );
        }
        // Every event Tollgate marked delivered was taken by the receiver.
        const accepted = new Set(
          received
            .filter((receipt) => receipt.status !== undefined && receipt.status < 300)
            .map((receipt) => receipt.webhookId),
        );
        for (const row of queued) {
          if (row.succeeded === true && !accepted.has(text(row.id))) {
            violations.push({
              detail: 'marked delivered, never accepted by the receiver',
              ids: { ...ids, webhookEvent: text(row.id) },
            });
          }
        }
      }
      return violations;
    });

    await check('every outbox event delivered to every subscribed endpoint', async () => {
      const violations: Omit<Violation, 'invariant'>[] = (
        await query('select id, type from outbox_events where relayed_at is null')
      ).map((row) => ({
        detail: `${text(row.type)} never relayed to the endpoints`,
        ids: { outboxEvent: text(row.id) },
      }));
      const missing = await query(
        `select w.id as endpoint_id, o.id as outbox_event_id, o.type from webhook_endpoints w
         join outbox_events o on o.organization_id = w.organization_id
           and o.type = any(w.events) and o.created_at >= w.created_at
         where w.enabled and not exists (select 1 from webhook_events e
           where e.endpoint_id = w.id and e.outbox_event_id = o.id)`,
      );
      for (const row of missing) {
        violations.push({
          detail: `${text(row.type)} never queued for the endpoint`,
          ids: { endpoint: text(row.endpoint_id), outboxEvent: text(row.outbox_event_id) },
        });
      }
      if (inputs.deliveredEndpointUrls?.length) {
        const undelivered = await query(
          `select w.id as endpoint_id, e.id as webhook_event_id, e.attempts from webhook_events e
           join webhook_endpoints w on w.id = e.endpoint_id
           where w.url in (?) and e.succeeded is not true`,
          [inputs.deliveredEndpointUrls],
        );
        for (const row of undelivered) {
          violations.push({
            detail: `not delivered after ${text(row.attempts)} attempts`,
            ids: { endpoint: text(row.endpoint_id), webhookEvent: text(row.webhook_event_id) },
          });
        }
      }
      return violations;
    });

    await check('each accepted invitation made exactly one membership', async () => {
      const violations: Omit<Violation, 'invariant'>[] = [];
      const rows = await query(
        `select i.id, count(m.id) as members
         from invitations i
         left join users u on lower(u.email) = i.email
         left join members m on m.user_id = u.id and m.organization_id = i.organization_id
         where i.status = 'accepted'
         group by i.id having count(m.id) <> 1`,
      );
      for (const row of rows) {
        violations.push({
          detail: `accepted, ${text(row.members)} memberships`,
          ids: { invitation: text(row.id) },
        });
      }
      const accepted = inputs.invitationFates?.accepted ?? [];
      if (accepted.length > 0) {
        const stored = await query(`select id, status from invitations where id in (?)`, [
          accepted,
        ]);
        const statuses = new Map(stored.map((row) => [text(row.id), text(row.status)]));
        for (const id of accepted) {
          if (statuses.get(id) !== 'accepted') {
            violations.push({
              detail: `the invitee's accept was answered; the invitation is ${statuses.get(id) ?? 'missing'}`,
              ids: { invitation: id },
            });
          }
        }
      }
      return violations;
    });

    await check('no invitation accepted after cancel or expiry', async () => {
      const violations: Omit<Violation, 'invariant'>[] = [];
      // A member for the address of an invitation that ended without an accept (the traffic
      // invites each address once), or an accept later than the invitation's expiry.
      const rows = await query(
        `select i.id, i.status, i.expires_at, m.created_at as joined_at
         from invitations i
         join users u on lower(u.email) = i.email
         join members m on m.user_id = u.id and m.organization_id = i.organization_id
         where ((i.status = 'canceled' or (i.status = 'pending' and i.expires_at <= now()))
             and not exists (select 1 from invitations accepted
               where accepted.organization_id = i.organization_id and accepted.email = i.email
                 and accepted.status = 'accepted'))
           or (i.status = 'accepted' and m.created_at > i.expires_at)`,
      );
      for (const row of rows) {
        violations.push({
          detail: `${text(row.status)}, expiring ${text(row.expires_at)}; a member since ${text(row.joined_at)}`,
          ids: { invitation: text(row.id) },
        });
      }
      const fates = inputs.invitationFates;
      const ended = [
        ...(fates?.canceled ?? []).map((id) => [id, 'canceled'] as const),
        ...(fates?.expired ?? []).map((id) => [id, 'pending'] as const),
      ];
      if (ended.length > 0) {
        const stored = await query(`select id, status from invitations where id in (?)`, [
          ended.map(([id]) => id),
        ]);
        const statuses = new Map(stored.map((row) => [text(row.id), text(row.status)]));
        for (const [id, expected] of ended) {
          if (statuses.get(id) !== expected) {
            violations.push({
              detail: `${expected === 'canceled' ? 'canceled' : 'left to expire'}, then answered: ${statuses.get(id) ?? 'missing'}`,
              ids: { invitation: id },
            });
          }
        }
      }
      return violations;
    });

    await check('no workflow stuck', async () => {
      if (!inputs.temporal) return undefined;
      return stuckWorkflows(inputs.temporal);
    });

    await check('no checkout left confirmed without an outcome', async () =>
      (
        await query(
          `select id, confirmed_at from checkouts where status = 'confirmed' order by confirmed_at`,
        )
      ).map((row) => ({
        detail: `confirmed at ${text(row.confirmed_at)}, no outcome`,
        ids: { checkout: text(row.id) },
      })),
    );

    await check('customer state equals a recomputation', async () => {
      if (!inputs.api) return undefined;
      return customerStateMismatches(query, inputs.api);
    });

    return results;
  } finally {
    await orm.close();
  }
}

/** Every violation of every invariant (see runInvariants). */
export async function checkInvariants(inputs: InvariantInputs): Promise<Violation[]> {
  return (await runInvariants(inputs)).flatMap((result) => result.violations);
}

interface StripeIntent {
  id: string;
  status: string;
  amount: number;
  metadata?: Record<string, string>;
}

async function stripeGet(
  simulatorUrl: string,
  secretKey = 'sk_test_soak',
  path: string,
): Promise<Row | undefined> {
  const response = await fetch(new URL(path, simulatorUrl), {
    headers: { authorization: `Bearer ${secretKey}` },
  });
  if (response.status === 404) return undefined;
  if (!response.ok) throw new Error(`Stripe simulator GET ${path}: ${response.status}`);
  return (await response.json()) as Row;
}

/** Every PaymentIntent the simulator holds, page by page. */
async function listPaymentIntents(simulatorUrl: string, secretKey?: string) {
  const all: StripeIntent[] = [];
  for (let after: string | undefined; ; ) {
    const page = (await stripeGet(
      simulatorUrl,
      secretKey,
      `/v1/payment_intents?limit=100${after ? `&starting_after=${encodeURIComponent(after)}` : ''}`,
    )) as { data: StripeIntent[]; has_more: boolean } | undefined;
    if (!page) throw new Error('the Stripe simulator lists no PaymentIntents');
    all.push(...page.data);
    if (!page.has_more || page.data.length === 0) return all;
    after = page.data.at(-1)?.id;
  }
}

/**
 * An open workflow should be waiting on a timer or a signal: one whose workflow task keeps
 * failing, or whose activity keeps failing, is stuck.
 */
async function stuckWorkflows(temporal: Client): Promise<Omit<Violation, 'invariant'>[]> {
  const violations: Omit<Violation, 'invariant'>[] = [];
  const open: WorkflowExecutionInfo[] = [];
  for await (const workflow of temporal.workflow.list({ query: 'ExecutionStatus="Running"' })) {
    open.push(workflow);
  }
  for (const workflow of open) {
    const description = await temporal.workflow
      .getHandle(workflow.workflowId, workflow.runId)
      .describe()
      .catch(() => undefined);
    if (!description) continue;
    const ids = { workflow: workflow.workflowId, type: workflow.type };
    const task = description.raw.pendingWorkflowTask;
    if (task && (task.attempt ?? 1) > 2) {
      violations.push({ detail: `its workflow task failed ${task.attempt} times`, ids });
    }
    for (const activity of description.raw.pendingActivities ?? []) {
      if ((activity.attempt ?? 1) > 3 && activity.lastFailure) {
        violations.push({
          detail: `activity ${activity.activityType?.name ?? '?'} on attempt ${activity.attempt}: ${activity.lastFailure.message ?? ''}`,
          ids,
        });
      }
    }
  }
  return violations;
}

/**
 * The state the API answers for a sample of customers (it caches it, dropped on change
 * notifications) against one read from the tables now: active subscriptions, granted benefits,
 * meters and balance.
 */
async function customerStateMismatches(
  query: (statement: string, params?: unknown[]) => Promise<Row[]>,
  api: { url: string; token: string; customerSample?: number },
): Promise<Omit<Violation, 'invariant'>[]> {
  const violations: Omit<Violation, 'invariant'>[] = [];
  const customers = await query(
    `select c.id, c.organization_id,
       (select coalesce(array_agg(s.id::text order by s.id), '{}') from subscriptions s
         where s.customer_id = c.id and s.status in ('active', 'trialing')) as subscriptions,
       (select coalesce(array_agg(g.benefit_id::text order by g.benefit_id), '{}') from benefit_grants g
         where g.customer_id = c.id and g.granted_at is not null and g.revoked_at is null) as benefits,
       (select coalesce(sum(amount), 0)::int from customer_balance_entry b
         where b.customer_id = c.id and b.currency = 'usd') as balance
     from customers c where c.deleted_at is null order by c.created_at desc limit ?`,
    [api.customerSample ?? 50],
  );
  for (const customer of customers) {
    const response = await fetch(`${api.url}/v1/customers/${text(customer.id)}/state`, {
      headers: { authorization: `Bearer ${api.token}` },
    });
    const ids = { customer: text(customer.id) };
    if (response.status === 404) continue; // another organization's customer
    if (!response.ok) {
      violations.push({ detail: `the API answered ${response.status}`, ids });
      continue;
    }
    const state = (await response.json()) as {
      active_subscriptions: { id: string }[];
      granted_benefits: { benefit_id: string }[];
      balance?: { balance: number; currency: string };
    };
    const answered = {
      subscriptions: state.active_subscriptions.map((s) => s.id).sort(),
      benefits: state.granted_benefits.map((g) => g.benefit_id).sort(),
    };
    const stored = {
      subscriptions: [...(customer.subscriptions as string[])].sort(),
      benefits: [...(customer.benefits as string[])].sort(),
    };
    for (const key of ['subscriptions', 'benefits'] as const) {
      if (answered[key].join() !== stored[key].join()) {
        violations.push({
          detail: `the API answers ${key} [${answered[key].join(', ')}], the tables hold [${stored[key].join(', ')}]`,
          ids,
        });
      }
    }
    if (state.balance && Number(state.balance.balance) !== Number(customer.balance)) {
      violations.push({
        detail: `the API answers a balance of ${state.balance.balance}, the tables hold ${text(customer.balance)}`,
        ids,
      });
    }
  }
  return violations;
}
