import type { EntityManager } from '@mikro-orm/postgresql';
import { Meter } from '../../db/entities/index.ts';
import { meterAggregationToSql } from '../../db/meter-filter-sql.ts';
import { joinSql, type SqlFragment, sql } from '../../db/sql.ts';
import { resourceNotFound } from '../errors.ts';
import {
  combinePartialsSql,
  meterEventConditions,
  noWindow,
  rawPartials,
  rollupPartials,
} from './usage-sql.ts';

export interface MeterBillingPeriod {
  meterId: string;
  customerId: string;
  /** The period billed is `[periodStart, periodEnd)`. */
  periodStart: Date;
  periodEnd: Date;
  /** The subscription whose renewal bills the period. */
  subscriptionId?: string | null;
}

const hourMs = 3_600_000;

/**
 * The customer's usage of the meter in `[start, end)`, exact: rollups for the hours wholly
 * inside, the raw events of the partial hours at either end (`unique` reads only raw events).
 */
export async function meterUsage(
  em: EntityManager,
  meter: Meter,
  customerId: string,
  start: Date,
  end: Date,
): Promise<string> {
  const statement = meterUsageSql(meter, customerId, start, end);
  const [row] = await em.execute<{ units: string }[]>(statement.sql, statement.params);
  return row?.units ?? '0';
}

/**
 * The statement `meterUsage` runs: one row, `units` as exact decimal text. A scalar subquery,
 * so that one statement can read the usage of many meters and customers.
 */
export function meterUsageSql(
  meter: Meter,
  customerId: string,
  start: Date,
  end: Date,
): SqlFragment {
  const customer = sql`e.customer_id = ${customerId}`;
  if (meter.aggregation.func === 'unique') {
    return sql`select trim_scale(${meterAggregationToSql(meter.aggregation, 'e')})::text as units
      from events e where ${meterEventConditions(meter, sql`${start}`, sql`${end}`, [customer])}`;
  }
  const firstWholeHour = new Date(Math.ceil(start.getTime() / hourMs) * hourMs);
  const lastHourEnd = new Date(Math.floor(end.getTime() / hourMs) * hourMs);
  const raw = (since: Date, until: Date) =>
    rawPartials(meter, noWindow, false, sql`${since}`, sql`${until}`, [customer]);
  const partials: SqlFragment[] =
    firstWholeHour < lastHourEnd
      ? [
          raw(start, firstWholeHour),
          rollupPartials(meter, noWindow, false, sql`${firstWholeHour}`, sql`${lastHourEnd}`, [
            sql`r.customer_id = ${customerId}`,
          ]),
          raw(lastHourEnd, end),
        ]
      : [raw(start, end)];
  return sql`select trim_scale(${combinePartialsSql(meter.aggregation)})::text as units
    from (${joinSql(partials, ' union all ')}) p`;
}

/**
 * Bills a customer's usage of a meter for a closed period, once: records the exact units (a
 * decimal string) as a MeterBilledPeriod and answers them; billing the same period again answers
 * what was recorded.
 * From then on, events ingested for the period are reported as late usage on that record, not
 * added to it.
 *
 * Ingestion locks the customer meter (creating it if needed) before looking for billed periods;
 * billing takes the same lock before reading the usage, so a batch storing events for the
 * period either commits before the units are read, or finds the period billed.
 */
export async function billMeterUsage(
  em: EntityManager,
  period: MeterBillingPeriod,
): Promise<string> {
  const { meterId, customerId, periodStart, periodEnd } = period;
  if (!(periodStart < periodEnd)) {
    throw new RangeError(`A billed period must end after it starts (${periodStart.toISOString()})`);
  }
  return em.transactional(async (tx) => {
    const meter = await tx.findOne(Meter, { id: meterId });
    if (!meter) throw resourceNotFound('Meter not found');
    await tx.execute(
      `insert into customer_meters (id, customer_id, meter_id, consumed_units, credited_units, created_at)
       select gen_random_uuid(), c.id, ?, 0, 0, now() from customers c
        where c.id = ? and c.organization_id = ?
       on conflict (customer_id, meter_id) do nothing`,
      [meterId, customerId, meter.organization.id],
    );
    const locked = await tx.execute<{ id: string }[]>(
      'select id from customer_meters where customer_id = ? and meter_id = ? for update',
      [customerId, meterId],
    );
    const [billed] = await tx.execute<{ units: string }[]>(
      `select trim_scale(units)::text as units from meter_billed_periods
        where meter_id = ? and customer_id = ? and period_start = ?`,
      [meterId, customerId, periodStart],
    );
    if (billed) return billed.units;
    if (locked.length === 0) throw resourceNotFound('Customer not found');
    const units = await meterUsage(tx, meter, customerId, periodStart, periodEnd);
    await tx.execute(
      `insert into meter_billed_periods (id, meter_id, customer_id, period_start, period_end, units,
         subscription_id, billed_at, late_units, late_event_count)
       values (gen_random_uuid(), ?, ?, ?, ?, ?, ?, now(), 0, 0)`,
      [meterId, customerId, periodStart, periodEnd, units, period.subscriptionId ?? null],
    );
    return units;
  });
}
