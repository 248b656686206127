import type { EntityManager } from '@mikro-orm/postgresql';
import type { Metadata } from '../../db/entities/columns.ts';
import { Customer, Meter } from '../../db/entities/index.ts';
import { newId } from '../../db/ids.ts';
import { type ListQuery, likePattern } from '../../db/listing.ts';
import { meterAggregationToSql, meterFilterToSql } from '../../db/meter-filter-sql.ts';
import { executeBound } from '../../db/sql.ts';
import {
  type MeterAggregation,
  type MeterEvent,
  type MeterFilter,
  matchesFilter,
  operandOf,
} from '../../domain/meter-filter.ts';
import { announceCustomerStateChange, recordCustomerStateChange } from '../customers/state.ts';
import { resourceNotFound } from '../errors.ts';
import type { CustomerMeterRow, CustomerMeterSortField } from './schemas.ts';

/** A customer meter's units as the database holds them: decimals as exact text. */
export interface CustomerMeterUnits {
  consumedUnits: string;
  creditedUnits: number;
  balance: string;
}

export interface MeterCredit {
  organizationId: string;
  customerId: string;
  meterId: string;
  /** Whole units the grant credits. */
  units: number;
  /** Whether unused units carry over into the next period of the grant. */
  rollover: boolean;
  grantId: string;
  /**
   * Set when the grant starts a new period (`benefit_grant.cycled`): the meter is reset
   * (`meter.reset`, consumption counts again from the period start) and credited units become
   * `units`, plus the unused balance (whole units, never negative) when `rollover`. Without it
   * the units are added to what is credited. The period start names the credit: a cycle applied
   * twice counts once.
   */
  cycle?: { periodStart: Date };
}

/** The result of a credit: `applied` is false when the same credit was already recorded. */
export interface MeterCreditResult extends CustomerMeterUnits {
  applied: boolean;
}

interface UnitsRow {
  consumed_units: string;
  credited_units: number;
  balance: string;
}

const unitsOf = (row: UnitsRow): CustomerMeterUnits => ({
  consumedUnits: row.consumed_units,
  creditedUnits: row.credited_units,
  balance: row.balance,
});

const unitsColumns =
  'consumed_units::text, credited_units, (credited_units - consumed_units)::text as balance';

/**
 * Records a system event of the customer (`meter.credited`, `meter.reset`) unless one with the
 * same external id exists: answers whether it was recorded. It carries the customer's external
 * id, as ingested events do.
 */
async function recordSystemEvent(
  em: EntityManager,
  organizationId: string,
  customerId: string,
  event: { name: 'meter.credited' | 'meter.reset'; metadata: Metadata; externalId: string },
  timestamp: Date,
): Promise<boolean> {
  const inserted = await em.execute<{ id: string }[]>(
    `insert into events (id, organization_id, name, source, timestamp, customer_id,
       external_customer_id, external_id, metadata, ingested_at)
     select ?, ?, ?, 'system', ?, c.id, c.external_id, ?, ?, ?
       from customers c where c.id = ? and c.organization_id = ?
     on conflict (organization_id, external_id) do nothing
     returning id`,
    [
      newId(),
      organizationId,
      event.name,
      timestamp,
      event.externalId,
      JSON.stringify(event.metadata),
      timestamp,
      customerId,
      organizationId,
    ],
  );
  return inserted.length > 0;
}

/** Locks the customer meter (creating it) and answers its units before the change. */
async function lockCustomerMeter(
  em: EntityManager,
  customerId: string,
  meterId: string,
  now: Date,
): Promise<UnitsRow> {
  await em.execute(
    `insert into customer_meters (id, customer_id, meter_id, consumed_units, credited_units, created_at)
     values (?, ?, ?, 0, 0, ?) on conflict (customer_id, meter_id) do nothing`,
    [newId(), customerId, meterId, now],
  );
  const [row] = await em.execute<UnitsRow[]>(
    `select ${unitsColumns} from customer_meters where customer_id = ? and meter_id = ? for update`,
    [customerId, meterId],
  );
  return row as UnitsRow;
}

/**
 * Credits meter units to a customer inside the caller's transaction (`em` must be one): records
 * the `meter.credited` system event (and `meter.reset` for a cycle) and updates the customer
 * meter, creating it. Idempotent per grant, and per period for cycles. Records
 * `customer.state_changed` (the state shows credited units): one per transaction, so a grant
 * that credits sends one.
 */
export async function creditCustomerMeter(
  em: EntityManager,
  credit: MeterCredit,
): Promise<MeterCreditResult> {
  const { organizationId, customerId, meterId, units, rollover, grantId, cycle } = credit;
  const now = new Date();
  const period = cycle ? `:${cycle.periodStart.toISOString()}` : '';
  const before = await lockCustomerMeter(em, customerId, meterId, now);
  const credited = await recordSystemEvent(
    em,
    organizationId,
    customerId,
    {
      name: 'meter.credited',
      metadata: { meter_id: meterId, units, rollover },
      externalId: `meter.credited:${grantId}${period}`,
    },
    now,
  );
  if (!credited) return { applied: false, ...unitsOf(before) };
  if (cycle) {
    await recordSystemEvent(
      em,
      organizationId,
      customerId,
      {
        name: 'meter.reset',
        metadata: { meter_id: meterId },
        externalId: `meter.reset:${grantId}${period}`,
      },
      now,
    );
  }
  // A cycle replaces the credit, keeping what was unused when it rolls over, and counts usage
  // again from the period start.
  const assignments = cycle
    ? `credited_units = ? + case when ? then greatest(floor(credited_units - consumed_units), 0)::int else 0 end,
       consumed_units = 0, reset_at = ?`
    : 'credited_units = credited_units + ?';
  const [after] = await em.execute<UnitsRow[]>(
    `update customer_meters set ${assignments}, modified_at = ?
     where customer_id = ? and meter_id = ? returning ${unitsColumns}`,
    [units, ...(cycle ? [rollover, cycle.periodStart] : []), now, customerId, meterId],
  );
  await recordCustomerStateChange(em, organizationId, customerId);
  return { applied: true, ...unitsOf(after as UnitsRow) };
}

/** A stored user event as meters read it. */
export interface UsageEventRow {
  id: string;
  name: string;
  timestamp: Date;
  customerId: string;
  metadata: Metadata;
}

interface MeterRow {
  id: string;
  filter: MeterFilter;
  aggregation: MeterAggregation;
}

/** Usage that arrived for a period already billed: reported, never added to what was billed. */
export interface LateUsage {
  billedPeriodId: string;
  meterId: string;
  customerId: string;
  eventCount: number;
}

/**
 * Aggregations whose consumed units are the sum of per-event contributions; the others (`max`,
 * `min`, `avg`, `unique`) cannot be updated from a batch alone and are recomputed from the
 * customer's events since the meter's last reset.
 */
const additive = (aggregation: MeterAggregation) =>
  aggregation.func === 'count' || aggregation.func === 'sum';

/**
 * The value an event contributes to an aggregation's hourly rollup: null for `count` and
 * `unique` (counted only), the number for the others; undefined when the aggregation does not
 * read the event (its property missing or, for numeric functions, not a number).
 */
function rollupValue(aggregation: MeterAggregation, event: MeterEvent) {
  if (aggregation.func === 'count') return null;
  const operand = operandOf(event, aggregation.property);
  if (aggregation.func === 'unique') return operand === undefined ? undefined : null;
  return typeof operand === 'number' ? operand : undefined;
}

/** The start of the event's hour, as the rollups key it (ISO text, computed once per time). */
function hourOf(timestamp: Date, known: Map<number, string>) {
  const hour = Math.floor(timestamp.getTime() / 3_600_000) * 3_600_000;
  let text = known.get(hour);
  if (text === undefined) {
    text = new Date(hour).toISOString();
    known.set(hour, text);
  }
  return text;
}

interface Contribution {
  meter: MeterRow;
  event: UsageEventRow;
  value: number | null;
}

const pairKey = (customerId: string, meterId: string) => `${customerId}/${meterId}`;

/** Each event's contribution to each meter whose filter it matches and whose aggregation reads it. */
function contributionsOf(meters: MeterRow[], events: UsageEventRow[]): Contribution[] {
  const meterEvents: MeterEvent[] = events.map((event) => ({
    name: event.name,
    source: 'user',
    timestamp: event.timestamp,
    metadata: event.metadata,
  }));
  const contributions: Contribution[] = [];
  for (const meter of meters) {
    meterEvents.forEach((meterEvent, index) => {
      if (!matchesFilter(meter.filter, meterEvent)) return;
      const value = rollupValue(meter.aggregation, meterEvent);
      if (value !== undefined) {
        contributions.push({ meter, event: events[index] as UsageEventRow, value });
      }
    });
  }
  return contributions;
}

/** A meter reset, or a billed period, of a customer meter the batch touches. */
interface UsageBoundary {
  kind: 'reset' | 'billed';
  id: string;
  customer_id: string;
  meter_id: string;
  start: string | Date;
  end: string | Date | null;
}

/**
 * What decides where usage goes (both rare): the resets since the batch's earliest event, and
 * the periods already billed that end after it, of the customer meters the contributions touch.
 */
function usageBoundaries(
  em: EntityManager,
  contributions: Contribution[],
  earliest: Date,
): Promise<UsageBoundary[]> {
  const pairs = new Map<string, { customer_id: string; meter_id: string }>();
  for (const { meter, event } of contributions) {
    pairs.set(pairKey(event.customerId, meter.id), {
      customer_id: event.customerId,
      meter_id: meter.id,
    });
  }
  return executeBound<UsageBoundary>(
    em,
    `with p as (select * from json_to_recordset($1::json) as p(customer_id uuid, meter_id uuid))
     select 'reset' as kind, cm.id, cm.customer_id, cm.meter_id, cm.reset_at as start, null as end
       from customer_meters cm join p using (customer_id, meter_id)
      where cm.reset_at > $2::timestamptz
     union all
     select 'billed', bp.id, bp.customer_id, bp.meter_id, bp.period_start, bp.period_end
       from meter_billed_periods bp join p using (customer_id, meter_id)
      where bp.period_end > $2`,
    [JSON.stringify([...pairs.values()]), earliest],
  );
}

/** A contribution as the upsert reads it: its hourly rollup, and the units its customer meter gets. */
interface UsageRow {
  meter_id: string;
  customer_id: string;
  hour: string;
  value: number | null;
  units: number;
}

/**
 * Where each contribution goes. Each goes to the rollups; its `units` to the customer meter:
 * the value (1 for `count`) for additive meters, 0 otherwise or when it belongs to a billed
 * period (counted there as late usage) or precedes the meter's last reset. Non-additive meters
 * are recomputed for the customers they name.
 */
function placeContributions(contributions: Contribution[], boundaries: UsageBoundary[]) {
  const late = new Map<string, LateUsage>();
  const recomputed = new Map<MeterRow, Set<string>>();
  const hours = new Map<number, string>();
  const rows = contributions.map(({ meter, event, value }): UsageRow => {
    const row = {
      meter_id: meter.id,
      customer_id: event.customerId,
      hour: hourOf(event.timestamp, hours),
      value,
      units: 0,
    };
    const time = event.timestamp.getTime();
    const ofPair = boundaries.filter(
      (candidate) => candidate.meter_id === meter.id && candidate.customer_id === event.customerId,
    );
    const billed = ofPair.find(
      (candidate) =>
        candidate.kind === 'billed' &&
        new Date(candidate.start).getTime() <= time &&
        time < new Date(candidate.end as string).getTime(),
    );
    const beforeReset = ofPair.some(
      (candidate) => candidate.kind === 'reset' && time < new Date(candidate.start).getTime(),
    );
    if (billed) {
      const usage = late.get(billed.id) ?? {
        billedPeriodId: billed.id,
        meterId: meter.id,
        customerId: event.customerId,
        eventCount: 0,
      };
      usage.eventCount++;
      late.set(billed.id, usage);
    } else if (beforeReset) {
      // The previous period's usage: in the rollups only.
      return row;
    } else if (additive(meter.aggregation)) {
      row.units = value ?? 1;
    } else {
      const customers = recomputed.get(meter) ?? new Set();
      customers.add(event.customerId);
      recomputed.set(meter, customers);
    }
    return row;
  });
  return { rows, late, recomputed };
}

/**
 * One statement: the customer meters (created if new) get their units, then the rollups their
 * events (a data-modifying CTE the main query does not read runs last), each ordered by key.
 * Numbers travel as JSON text and are read as numeric: 0.1 stays exactly 0.1. The balance
 * before is the balance after, less the units added. Answers the customers whose balance
 * crossed zero.
 */
async function upsertUsage(em: EntityManager, rows: UsageRow[], now: Date): Promise<Set<string>> {
  const balances = await executeBound<{
    customer_id: string;
    meter_id: string;
    before: boolean;
    after: boolean;
  }>(
    em,
    `with c as (
       select * from json_to_recordset($1::json)
         as c(meter_id uuid, customer_id uuid, hour timestamptz, value numeric, units numeric)),
     rollups as (
       insert into meter_usage_hours as h (id, meter_id, customer_id, hour, event_count, sum_value,
         min_value, max_value)
       select gen_random_uuid(), meter_id, customer_id, hour, count(*), coalesce(sum(value), 0),
           min(value), max(value)
         from c group by meter_id, customer_id, hour order by meter_id, customer_id, hour
       on conflict (meter_id, customer_id, hour) do update set
         event_count = h.event_count + excluded.event_count,
         sum_value = h.sum_value + excluded.sum_value,
         min_value = least(h.min_value, excluded.min_value),
         max_value = greatest(h.max_value, excluded.max_value)),
     d as (select customer_id, meter_id, sum(units) as units from c group by customer_id, meter_id),
     upserted as (
       insert into customer_meters as cm (id, customer_id, meter_id, consumed_units, credited_units,
         created_at)
       select gen_random_uuid(), customer_id, meter_id, units, 0, $2::timestamptz
         from d order by customer_id, meter_id
       on conflict (customer_id, meter_id) do update set
         consumed_units = cm.consumed_units + excluded.consumed_units, modified_at = $2
       returning cm.customer_id, cm.meter_id, cm.credited_units, cm.consumed_units)
     select u.customer_id, u.meter_id, u.credited_units - u.consumed_units > 0 as after,
         u.credited_units - u.consumed_units + d.units > 0 as before
       from upserted u join d using (customer_id, meter_id)`,
    [JSON.stringify(rows), now],
  );
  return new Set(balances.filter((row) => row.before !== row.after).map((row) => row.customer_id));
}

/**
 * Accounts stored user events (all of one organization, with a customer) to the meters they
 * match, inside the caller's transaction, in a fixed number of statements whatever the batch
 * size: one statement upserts the customer meters and the hourly rollups. Every meter is
 * evaluated once per event with the pure evaluator. Events falling in a billed period are counted
 * there as late usage (and answered) instead of in the customer meter; events before a meter's
 * last reset only in the rollups. Both upserts take their row locks in key order (customer
 * meters, then rollups), so concurrent batches of the same customers queue instead of
 * deadlocking. A balance crossing zero records `customer.state_changed`.
 */
export async function recordUsage(
  em: EntityManager,
  organizationId: string,
  events: UsageEventRow[],
): Promise<LateUsage[]> {
  if (events.length === 0) return [];
  const meters = await em.execute<MeterRow[]>(
    'select id, filter, aggregation from meters where organization_id = ?',
    [organizationId],
  );
  const contributions = contributionsOf(meters, events);
  if (contributions.length === 0) return [];
  const now = new Date();
  const earliest = new Date(
    events.reduce((least, event) => Math.min(least, event.timestamp.getTime()), Infinity),
  );
  const boundaries = await usageBoundaries(em, contributions, earliest);
  const { rows, late, recomputed } = placeContributions(contributions, boundaries);

  // One announcement for the whole organization (a batch may touch thousands of customers),
  // sent before the upsert below: notifications go out at commit anyway, and every round trip
  // after the upsert holds its row locks, for which concurrent batches of the same customers wait.
  await announceCustomerStateChange(em, organizationId);
  const crossed = await upsertUsage(em, rows, now);
  for (const [meter, customers] of recomputed) {
    const changed = await recomputeConsumedUnits(em, organizationId, meter, [...customers], now);
    for (const customerId of changed) crossed.add(customerId);
  }
  for (const usage of late.values()) {
    await recordLateUsage(em, organizationId, usage);
  }
  for (const customerId of crossed) await recordCustomerStateChange(em, organizationId, customerId);
  return [...late.values()];
}

/**
 * Consumed units of a meter for some customers (all without `customerIds`), recomputed from their
 * matching user events since the meter's last reset (exact, in SQL, as the evaluator); answers
 * the customers whose balance crossed zero. Ingestion takes this path for `max`, `min`, `avg`
 * and `unique` meters: its cost grows with the customer's events in the period.
 */
async function recomputeConsumedUnits(
  em: EntityManager,
  organizationId: string,
  meter: MeterRow,
  customerIds: string[] | undefined,
  now: Date,
): Promise<string[]> {
  const filter = meterFilterToSql(meter.filter, 'e');
  const aggregation = meterAggregationToSql(meter.aggregation, 'e');
  const changed = await em.execute<{ customer_id: string; crossed: boolean }[]>(
    `update customer_meters cm set modified_at = ?, consumed_units = recomputed.units
       from customer_meters previous, lateral (
         select ${aggregation.sql} as units from events e
          where e.organization_id = ? and e.customer_id = previous.customer_id
            and e.source = 'user' and e.timestamp >= coalesce(previous.reset_at, '-infinity')
            and ${filter.sql}) recomputed
      where previous.id = cm.id and cm.meter_id = ? ${customerIds ? 'and cm.customer_id in (?)' : ''}
      returning cm.customer_id, (previous.credited_units - previous.consumed_units > 0)
        <> (cm.credited_units - cm.consumed_units > 0) as crossed`,
    [
      now,
      ...aggregation.params,
      organizationId,
      ...filter.params,
      meter.id,
      ...(customerIds ? [customerIds] : []),
    ],
  );
  return changed.filter((row) => row.crossed).map((row) => row.customer_id);
}

/**
 * Rebuilds a meter's customer meters from the stored events inside the caller's transaction:
 * every customer with a matching event gets one, and consumed units are recomputed since each
 * one's last reset. Call it beside `rebuildMeterRollups` when a meter is created (events may
 * predate it) or its filter or aggregation changes. Crossings record `customer.state_changed`.
 */
export async function rebuildCustomerMeters(
  em: EntityManager,
  organizationId: string,
  meter: MeterRow,
): Promise<void> {
  const now = new Date();
  const filter = meterFilterToSql(meter.filter, 'e');
  await em.execute(
    `insert into customer_meters (id, customer_id, meter_id, consumed_units, credited_units, created_at)
     select gen_random_uuid(), customer_id, ?, 0, 0, ?
       from (select distinct e.customer_id from events e
              where e.organization_id = ? and e.customer_id is not null and e.source = 'user'
                and ${filter.sql}) matching
      order by customer_id
     on conflict (customer_id, meter_id) do nothing`,
    [meter.id, now, organizationId, ...filter.params],
  );
  const crossed = await recomputeConsumedUnits(em, organizationId, meter, undefined, now);
  await announceCustomerStateChange(em, organizationId);
  for (const customerId of crossed) await recordCustomerStateChange(em, organizationId, customerId);
}

/**
 * Adds late events to their billed period: `late_units` becomes what the period's usage is now
 * minus what was billed (exact for every aggregation), `late_event_count` counts them.
 */
async function recordLateUsage(em: EntityManager, organizationId: string, usage: LateUsage) {
  const [meter] = await em.execute<MeterRow[]>(
    'select id, filter, aggregation from meters where id = ?',
    [usage.meterId],
  );
  const { filter, aggregation } = meter as MeterRow;
  const condition = meterFilterToSql(filter, 'e');
  const value = meterAggregationToSql(aggregation, 'e');
  await em.execute(
    `update meter_billed_periods bp set late_event_count = bp.late_event_count + ?,
       late_units = (select ${value.sql} from events e
          where e.organization_id = ? and e.customer_id = bp.customer_id and e.source = 'user'
            and e.timestamp >= bp.period_start and e.timestamp < bp.period_end and ${condition.sql})
         - bp.units
     where bp.id = ?`,
    [usage.eventCount, ...value.params, organizationId, ...condition.params, usage.billedPeriodId],
  );
}

/**
 * Gives a customer that now has `externalId` the events ingested for that external id before it
 * existed, and accounts them to its meters (inside the caller's transaction).
 */
export async function attachPendingEvents(
  em: EntityManager,
  organizationId: string,
  customerId: string,
  externalId: string,
): Promise<LateUsage[]> {
  const attached = await em.execute<
    { id: string; name: string; timestamp: string; metadata: Metadata }[]
  >(
    `update events set customer_id = ?
      where organization_id = ? and external_customer_id = ? and customer_id is null
        and source = 'user'
      returning id, name, timestamp, metadata`,
    [customerId, organizationId, externalId],
  );
  return recordUsage(
    em,
    organizationId,
    attached.map((row) => ({ ...row, timestamp: new Date(row.timestamp), customerId })),
  );
}

export interface CustomerMeterListFilter {
  customerIds: string[];
  externalCustomerIds: string[];
  meterIds: string[];
  /** Searched in the meter's name. */
  meterName?: string | undefined;
}

const customerMeterSortColumns: Record<CustomerMeterSortField, string> = {
  created_at: 'cm.created_at',
  modified_at: 'cm.modified_at',
  customer_id: 'cm.customer_id',
  customer_name: 'c.name',
  meter_id: 'cm.meter_id',
  meter_name: 'm.name',
  consumed_units: 'cm.consumed_units',
  credited_units: 'cm.credited_units',
  balance: 'cm.credited_units - cm.consumed_units',
};

const customerMeterSelect = `select cm.id, cm.created_at, cm.modified_at, cm.customer_id, cm.meter_id,
    cm.consumed_units::text, cm.credited_units, (cm.credited_units - cm.consumed_units)::text as balance
  from customer_meters cm
  join customers c on c.id = cm.customer_id
  join meters m on m.id = cm.meter_id`;

/** A page of the organization's customer meters (live customers only), with the total count. */
export async function listCustomerMeters(
  em: EntityManager,
  organizationId: string,
  { sorting, page, ...filter }: ListQuery<CustomerMeterListFilter, CustomerMeterSortField>,
): Promise<[CustomerMeterRow[], number]> {
  const conditions = ['c.organization_id = ?', 'c.deleted_at is null'];
  const params: unknown[] = [organizationId];
  if (filter.customerIds.length) {
    conditions.push('cm.customer_id in (?)');
    params.push(filter.customerIds);
  }
  if (filter.externalCustomerIds.length) {
    conditions.push('c.external_id in (?)');
    params.push(filter.externalCustomerIds);
  }
  if (filter.meterIds.length) {
    conditions.push('cm.meter_id in (?)');
    params.push(filter.meterIds);
  }
  if (filter.meterName) {
    conditions.push('m.name ilike ?');
    params.push(likePattern(filter.meterName));
  }
  const where = conditions.join(' and ');
  const order = sorting
    .map(
      ({ field, descending }) =>
        `${customerMeterSortColumns[field]} ${descending ? 'desc nulls last' : 'asc nulls first'}`,
    )
    .join(', ');
  const [rows, [count]] = await Promise.all([
    em.execute<CustomerMeterRow[]>(
      `${customerMeterSelect} where ${where} order by ${order}, cm.id limit ? offset ?`,
      [...params, page.limit, page.offset],
    ),
    em.execute<{ total: string }[]>(
      `select count(*) as total from customer_meters cm join customers c on c.id = cm.customer_id
        join meters m on m.id = cm.meter_id
        where ${where}`,
      params,
    ),
  ]);
  return [rows, Number(count?.total ?? 0)];
}

/**
 * The organization's customer meter (of `customerId` only, when given); another organization's
 * id, or another customer's, is not found.
 */
export async function getCustomerMeter(
  em: EntityManager,
  organizationId: string,
  id: string,
  customerId?: string,
): Promise<CustomerMeterRow> {
  const [row] = await em.execute<CustomerMeterRow[]>(
    `${customerMeterSelect} where cm.id = ? and c.organization_id = ? and c.deleted_at is null
      ${customerId ? 'and cm.customer_id = ?' : ''}`,
    [id, organizationId, ...(customerId ? [customerId] : [])],
  );
  if (!row) throw resourceNotFound('Customer meter not found');
  return row;
}

/** The customers and meters some customer meters embed, each loaded once. */
export async function embeddedOf(em: EntityManager, rows: CustomerMeterRow[]) {
  const customerIds = [...new Set(rows.map((row) => row.customer_id))];
  const meterIds = [...new Set(rows.map((row) => row.meter_id))];
  const [customers, meters] = await Promise.all([
    customerIds.length ? em.find(Customer, { id: { $in: customerIds } }) : [],
    meterIds.length ? em.find(Meter, { id: { $in: meterIds } }) : [],
  ]);
  return {
    customers: new Map(customers.map((customer) => [customer.id, customer])),
    meters: new Map(meters.map((meter) => [meter.id, meter])),
  };
}
