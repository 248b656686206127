import type { EntityManager } from '@mikro-orm/postgresql';
import type { Meter } from '../../db/entities/index.ts';
import { sql, sqlText } from '../../db/sql.ts';
import { contributedValueSql, contributesToSql, meterEventConditions } from './usage-sql.ts';

/**
 * Rebuilds a meter's hourly rollups from its stored events, set-based, inside the caller's
 * transaction: what ingestion would have accumulated had the meter always been as it is now.
 * Called when a meter is created (events may predate it) and when its filter or aggregation
 * changes (the old rollups counted other events or other values).
 *
 * Ingestion stores events, then reads the meters and adds to their rollups, in one transaction.
 * Holding the events table in SHARE mode until commit waits for batches already storing and
 * holds back the next ones until the meter is committed: no batch is counted twice or missed.
 */
export async function rebuildMeterRollups(em: EntityManager, meter: Meter): Promise<void> {
  await em.execute('lock table events in share mode');
  await em.execute('delete from meter_usage_hours where meter_id = ?', [meter.id]);
  const hour = sqlText(`date_trunc('hour', e."timestamp" at time zone 'UTC') at time zone 'UTC'`);
  const statement = sql`insert into meter_usage_hours
      (id, meter_id, customer_id, hour, event_count, sum_value, min_value, max_value)
    select gen_random_uuid(), ${meter.id}, e.customer_id, ${hour}, count(*), coalesce(sum(x.v), 0),
        min(x.v), max(x.v)
      from events e cross join lateral (select ${contributedValueSql(meter.aggregation)} as v) x
      where ${meterEventConditions(meter, sqlText(`'-infinity'`), sqlText(`'infinity'`), [
        sqlText('e.customer_id is not null'),
        contributesToSql(meter.aggregation),
      ])}
      group by e.customer_id, ${hour}`;
  await em.execute(statement.sql, statement.params);
}
