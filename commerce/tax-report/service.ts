import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../db/sql.ts';
import { decimalAmount } from '../../domain/money.ts';
import type { TaxReportQuery, TaxReportRow } from './schemas.ts';

/**
 * Tax collected per jurisdiction and month, summed by PostgreSQL from the tax lines of paid
 * orders, less succeeded refunds in the month they were given. A refund gives back each line of
 * its order pro rata: the line's taxable amount × refund / order net, and the line's tax ×
 * refund tax / order tax (each rounded half away from zero; with one line, exactly the refund's).
 */
const taxReportSql = `
with order_lines as (
  select o.id as order_id, o.currency, o.net_amount, o.tax_amount, line.*
  from orders o
  cross join lateral jsonb_to_recordset(o.tax_lines)
    as line(jurisdiction text, "taxableAmount" bigint, "taxAmount" bigint, "reverseCharge" boolean)
  where o.organization_id = $1
    and o.status in ('paid', 'partially_refunded', 'refunded')
    and ($4::text is null or o.currency = $4)
),
movements as (
  select o.order_id, o.currency, o.jurisdiction, o."reverseCharge" as reverse_charge,
    o."taxableAmount" as taxable_amount, o."taxAmount" as tax_amount, orders.created_at as at,
    true as sale
  from order_lines o join orders on orders.id = o.order_id
  where orders.created_at >= $2 and orders.created_at < $3
  union all
  select o.order_id, o.currency, o.jurisdiction, o."reverseCharge",
    -round(o."taxableAmount"::numeric * r.amount / nullif(o.net_amount, 0)),
    -coalesce(round(o."taxAmount"::numeric * r.tax_amount / nullif(o.tax_amount, 0)), 0),
    r.created_at, false
  from order_lines o join refunds r on r.order_id = o.order_id
  where r.status = 'succeeded' and r.created_at >= $2 and r.created_at < $3
)
select to_char(at at time zone 'UTC', 'YYYY-MM') as period,
  split_part(jurisdiction, '-', 1) as country,
  nullif(split_part(jurisdiction, '-', 2), '') as subdivision,
  currency, reverse_charge,
  coalesce(sum(taxable_amount), 0)::bigint as taxable_amount,
  coalesce(sum(tax_amount), 0)::bigint as tax_amount,
  count(distinct order_id) filter (where sale) as order_count
from movements
group by 1, 2, 3, 4, 5
order by 1, 2, 3 nulls first, 4, 5`;

interface TaxReportRecord {
  period: string;
  country: string;
  subdivision: string | null;
  currency: string;
  reverse_charge: boolean;
  taxable_amount: string;
  tax_amount: string;
  order_count: string;
}

/** The start of the UTC day after `date` (`2025-03-31` → 2025-04-01T00:00Z). */
const dayAfter = (date: string) => new Date(Date.parse(date) + 86_400_000);

/** The organization's tax report over the query's days, oldest month first. */
export async function taxReport(
  em: EntityManager,
  organizationId: string,
  { start_date, end_date, currency }: TaxReportQuery,
): Promise<TaxReportRow[]> {
  const records = await executeBound<TaxReportRecord>(em, taxReportSql, [
    organizationId,
    new Date(start_date),
    dayAfter(end_date),
    currency ?? null,
  ]);
  return records.map((record) => ({
    period: record.period,
    country: record.country,
    subdivision: record.subdivision,
    currency: record.currency,
    reverseCharge: record.reverse_charge,
    taxableAmount: Number(record.taxable_amount),
    taxAmount: Number(record.tax_amount),
    orderCount: Number(record.order_count),
  }));
}

/** The report's CSV columns (Tollgate's own), amounts as exact decimal text. */
export const taxReportHeader = [
  'Period',
  'Country',
  'Subdivision',
  'Currency',
  'Reverse Charge',
  'Taxable Amount',
  'Tax Amount',
  'Orders',
] as const;

export const taxReportCsvRow = (row: TaxReportRow): string[] => [
  row.period,
  row.country,
  row.subdivision ?? '',
  row.currency,
  row.reverseCharge ? 'yes' : 'no',
  decimalAmount(row.taxableAmount),
  decimalAmount(row.taxAmount),
  String(row.orderCount),
];
