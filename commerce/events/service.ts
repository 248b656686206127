import type { EntityManager } from '@mikro-orm/postgresql';
import { RequestValidationError, type ValidationIssue } from '../../core/errors.ts';
import { businessMetrics } from '../../core/metrics.ts';
import { Customer, Meter, UsageEvent } from '../../db/entities/index.ts';
import { newId } from '../../db/ids.ts';
import { type ListQuery, likePattern } from '../../db/listing.ts';
import { meterFilterToSql } from '../../db/meter-filter-sql.ts';
import { executeBound, type SqlFragment } from '../../db/sql.ts';
import type { MeterFilter } from '../../domain/meter-filter.ts';
import { type LateUsage, recordUsage, type UsageEventRow } from '../customer-meters/service.ts';
import { resourceNotFound } from '../errors.ts';
import {
  type EventCreateInput,
  type EventNameRow,
  type eventNameSortFields,
  type eventSortFields,
  maxEventsPerBatch,
  parseEventCreateInput,
} from './schemas.ts';

/** Who ingests: the organization, and whether events may name it (sessions) or not (tokens). */
export interface IngestingCaller {
  organizationId: string;
  mayNameOrganization: boolean;
}

export interface IngestResult {
  /** Events stored by this request. */
  inserted: number;
  /** Events skipped because one with the same `external_id` was stored before. */
  duplicates: number;
  /** Events that arrived for periods already billed. */
  lateUsage: LateUsage[];
}

interface EventRow {
  id: string;
  /** Where the insert puts it: every batch inserts in the same order of external ids. */
  position: number;
  name: string;
  timestamp: string;
  customer_id: string | null;
  external_customer_id: string | null;
  external_id: string | null;
  metadata: Record<string, string | number | boolean>;
}

/** Rows one insert statement carries (one JSON parameter), however large the batch. */
const insertChunkSize = 1000;

const issue = (index: number, loc: (string | number)[], msg: string, type: string) => ({
  loc: ['body', 'events', index, ...loc],
  msg,
  type,
});

/** One event checked on its own: its input when valid, else why not (added to `issues`). */
function validateEvent(
  event: unknown,
  index: number,
  caller: IngestingCaller,
  now: Date,
  issues: ValidationIssue[],
): EventCreateInput | null {
  const parsed = parseEventCreateInput(event);
  if (!parsed.success) {
    for (const zodIssue of parsed.error.issues) {
      const path = zodIssue.path.map((key) => (typeof key === 'symbol' ? String(key) : key));
      issues.push(issue(index, path, zodIssue.message, zodIssue.code));
    }
    return null;
  }
  const input = parsed.data;
  if (input.timestamp && input.timestamp > now) {
    issues.push(issue(index, ['timestamp'], 'Timestamp must be in the past.', 'value_error'));
  } else if (input.organization_id != null && !caller.mayNameOrganization) {
    issues.push(
      issue(
        index,
        ['organization_id'],
        'Setting organization_id is disallowed when using an organization token.',
        'value_error',
      ),
    );
  } else if (input.organization_id != null && input.organization_id !== caller.organizationId) {
    issues.push(issue(index, ['organization_id'], 'Organization not found.', 'value_error'));
  } else {
    return input;
  }
  return null;
}

/**
 * Ingest transactions one API process runs at once (with two processes, four); later batches
 * wait their turn. Ingestion saturates the CPU before PostgreSQL's row locks: with 8 batches at
 * once on 2 cores a customer meter read waits behind them (read p99 ~115 ms at 35k events/s,
 * ~80 ms at 30k with this limit, ~45 ms at 22k with 1 per process: bench/ingest.ts).
 */
const concurrentIngests = 2;
let ingestsRunning = 0;
const ingestsWaiting: (() => void)[] = [];

async function inIngestSlot<Result>(work: () => Promise<Result>): Promise<Result> {
  if (ingestsRunning >= concurrentIngests) {
    await new Promise<void>((resolve) => ingestsWaiting.push(resolve));
  } else {
    ingestsRunning++;
  }
  try {
    return await work();
  } finally {
    // The slot passes straight to the next waiter, if any.
    const next = ingestsWaiting.shift();
    if (next) next();
    else ingestsRunning--;
  }
}

/**
 * Stores a batch of usage events (as they arrive: a request body is read while this checks)
 * and accounts them to the customer meters, all or nothing, as Polar does: any bad event, or
 * more than `maxEventsPerBatch`, refuses the whole batch with every issue (422) and stores
 * nothing. An event whose `external_id` was stored before is skipped (a retried batch counts
 * once). Events naming an external customer id that no customer has yet are kept without
 * customer, attached when it appears. Set-based, in one transaction: inserts of
 * `insertChunkSize` rows each, whatever the batch size.
 */
export async function ingestEvents(
  em: EntityManager,
  caller: IngestingCaller,
  events: AsyncIterable<unknown> | Iterable<unknown>,
): Promise<IngestResult> {
  const now = new Date();
  const valid: EventCreateInput[] = [];
  const issues: ValidationIssue[] = [];
  let index = 0;
  for await (const event of events) {
    if (index === maxEventsPerBatch) {
      throw new RequestValidationError([
        {
          loc: ['body', 'events'],
          msg: `A batch holds at most ${maxEventsPerBatch} events.`,
          type: 'too_big',
        },
      ]);
    }
    const input = validateEvent(event, index++, caller, now, issues);
    if (input) valid.push(input);
  }
  if (issues.length) throw new RequestValidationError(issues);
  if (valid.length === 0) return { inserted: 0, duplicates: 0, lateUsage: [] };
  const { organizationId } = caller;
  const result = await inIngestSlot(() => storeEvents(em, organizationId, valid, now));
  businessMetrics.eventsIngested.inc({ result: 'stored' }, result.inserted);
  businessMetrics.eventsIngested.inc({ result: 'duplicate' }, result.duplicates);
  return result;
}

/** Every batch's rows in one order (external id, then none): concurrent batches never deadlock. */
const byExternalId = (left: EventRow, right: EventRow) =>
  left.external_id === right.external_id
    ? 0
    : left.external_id === null
      ? 1
      : right.external_id === null || left.external_id < right.external_id
        ? -1
        : 1;

async function storeEvents(
  em: EntityManager,
  organizationId: string,
  valid: EventCreateInput[],
  now: Date,
): Promise<IngestResult> {
  return em.transactional(async (tx) => {
    const customerIds = new Set<string>();
    const externalIds = new Set<string>();
    for (const input of valid) {
      if (input.customer_id) customerIds.add(input.customer_id);
      else if (input.external_customer_id) externalIds.add(input.external_customer_id);
    }
    const customers = await executeBound<{ id: string; external_id: string | null }>(
      tx,
      `select id, external_id from customers
        where organization_id = $1 and deleted_at is null
          and (id in (select value::uuid from json_array_elements_text($2::json))
            or external_id in (select value from json_array_elements_text($3::json)))`,
      [organizationId, JSON.stringify([...customerIds]), JSON.stringify([...externalIds])],
    );
    const byId = new Map(customers.map((customer) => [customer.id, customer]));
    const customerOfExternalId = new Map(
      customers.map((customer) => [customer.external_id ?? '', customer.id]),
    );

    const rows: EventRow[] = [];
    const issues: ValidationIssue[] = [];
    // Every event of the batch is valid here: its index in `valid` is its index in the batch.
    valid.forEach((input, index) => {
      let customerId: string | null;
      let externalCustomerId: string | null;
      if (input.customer_id) {
        const customer = byId.get(input.customer_id);
        if (!customer) {
          issues.push(issue(index, ['customer_id'], 'Customer not found.', 'value_error'));
          return;
        }
        customerId = customer.id;
        externalCustomerId = customer.external_id;
      } else {
        externalCustomerId = input.external_customer_id ?? null;
        customerId = customerOfExternalId.get(externalCustomerId ?? '') ?? null;
      }
      rows.push({
        id: newId(now.getTime()),
        position: 0,
        name: input.name,
        timestamp: (input.timestamp ?? now).toISOString(),
        customer_id: customerId,
        external_customer_id: externalCustomerId,
        external_id: input.external_id ?? null,
        metadata: input.metadata ?? {},
      });
    });
    if (issues.length) throw new RequestValidationError(issues);

    rows.sort(byExternalId);
    const insertedIds = new Set<string>();
    for (let start = 0; start < rows.length; start += insertChunkSize) {
      const chunk = rows.slice(start, start + insertChunkSize);
      chunk.forEach((row, position) => {
        row.position = position;
      });
      const inserted = await executeBound<{ id: string }>(
        tx,
        `insert into events (id, organization_id, name, source, timestamp, customer_id,
           external_customer_id, external_id, metadata, ingested_at)
         select e.id, $1::uuid, e.name, 'user', e.timestamp, e.customer_id, e.external_customer_id,
             e.external_id, e.metadata, $2::timestamptz
           from json_to_recordset($3::json) as e(id uuid, position int, name text,
             timestamp timestamptz, customer_id uuid, external_customer_id text, external_id text,
             metadata jsonb)
           order by e.position
         on conflict (organization_id, external_id) do nothing
         returning id`,
        [organizationId, now, JSON.stringify(chunk)],
      );
      for (const row of inserted) insertedIds.add(row.id);
    }
    const usage: UsageEventRow[] = [];
    for (const row of rows) {
      if (row.customer_id === null || !insertedIds.has(row.id)) continue;
      usage.push({
        id: row.id,
        name: row.name,
        timestamp: new Date(row.timestamp),
        customerId: row.customer_id,
        metadata: row.metadata,
      });
    }
    const lateUsage = await recordUsage(tx, organizationId, usage);
    return { inserted: insertedIds.size, duplicates: rows.length - insertedIds.size, lateUsage };
  });
}

export interface EventListFilter {
  filter?: MeterFilter;
  startTimestamp?: Date;
  endTimestamp?: Date;
  customerIds: string[];
  externalCustomerIds: string[];
  meterId?: string;
  names: string[];
  sources: string[];
  metadata: Record<string, string[]>;
}

/** The WHERE conditions of an event list, over the events table aliased `e`. */
async function eventConditions(
  em: EntityManager,
  organizationId: string,
  filter: EventListFilter,
): Promise<SqlFragment> {
  const parts: SqlFragment[] = [{ sql: 'e.organization_id = ?', params: [organizationId] }];
  if (filter.filter) parts.push(meterFilterToSql(filter.filter, 'e'));
  if (filter.meterId) {
    const meter = await em.findOne(Meter, { id: filter.meterId, organization: organizationId });
    if (!meter) throw resourceNotFound('Meter not found');
    parts.push(meterFilterToSql(meter.filter, 'e'));
  }
  if (filter.startTimestamp) {
    parts.push({ sql: 'e.timestamp >= ?', params: [filter.startTimestamp] });
  }
  if (filter.endTimestamp) parts.push({ sql: 'e.timestamp <= ?', params: [filter.endTimestamp] });
  if (filter.customerIds.length) {
    parts.push({ sql: 'e.customer_id in (?)', params: [filter.customerIds] });
  }
  if (filter.externalCustomerIds.length) {
    parts.push({ sql: 'e.external_customer_id in (?)', params: [filter.externalCustomerIds] });
  }
  if (filter.names.length) parts.push({ sql: 'e.name in (?)', params: [filter.names] });
  if (filter.sources.length) parts.push({ sql: 'e.source in (?)', params: [filter.sources] });
  for (const [key, values] of Object.entries(filter.metadata)) {
    parts.push({ sql: 'e.metadata ->> ?::text in (?)', params: [key, values] });
  }
  return {
    sql: parts.map((part) => part.sql).join(' and '),
    params: parts.flatMap((part) => part.params),
  };
}

/** The customers of some events, by id (events without customer have none). */
export async function customersOf(em: EntityManager, events: UsageEvent[]) {
  const ids = [...new Set(events.flatMap((event) => (event.customer ? [event.customer.id] : [])))];
  const customers = ids.length ? await em.find(Customer, { id: { $in: ids } }) : [];
  return new Map(customers.map((customer) => [customer.id, customer]));
}

/**
 * A page of the organization's events (user and system), newest first by default. `filter` and
 * `meterId` narrow to what a meter filter matches, evaluated in SQL like the pure evaluator.
 */
export async function listEvents(
  em: EntityManager,
  organizationId: string,
  { sorting, page, ...filter }: ListQuery<EventListFilter, (typeof eventSortFields)[number]>,
): Promise<[UsageEvent[], number]> {
  const where = await eventConditions(em, organizationId, filter);
  const order = sorting
    .map(({ descending }) => `e.timestamp ${descending ? 'desc' : 'asc'}`)
    .join(', ');
  const [rows, [count]] = await Promise.all([
    em.execute(
      `select e.* from events e where ${where.sql} order by ${order}, e.id limit ? offset ?`,
      [...where.params, page.limit, page.offset],
    ),
    em.execute<{ total: string }[]>(`select count(*) as total from events e where ${where.sql}`, [
      ...where.params,
    ]),
  ]);
  return [rows.map((row) => em.map(UsageEvent, row)), Number(count?.total ?? 0)];
}

/** The organization's event; another organization's id is not found, like an unknown one. */
export async function getEvent(em: EntityManager, organizationId: string, id: string) {
  const event = await em.findOne(UsageEvent, { id, organization: organizationId });
  if (!event) throw resourceNotFound('Event not found');
  return event;
}

export interface EventNameFilter {
  customerIds: string[];
  externalCustomerIds: string[];
  sources: string[];
  query?: string;
}

const nameSortColumns: Record<(typeof eventNameSortFields)[number], string> = {
  name: 'name',
  occurrences: 'occurrences',
  first_seen: 'first_seen',
  last_seen: 'last_seen',
};

/** The distinct event names (per source) of the organization with how often and when they occur. */
export async function listEventNames(
  em: EntityManager,
  organizationId: string,
  { sorting, page, ...filter }: ListQuery<EventNameFilter, (typeof eventNameSortFields)[number]>,
): Promise<[EventNameRow[], number]> {
  const where = await eventConditions(em, organizationId, {
    customerIds: filter.customerIds,
    externalCustomerIds: filter.externalCustomerIds,
    names: [],
    sources: filter.sources,
    metadata: {},
  });
  const conditions = filter.query
    ? {
        sql: `${where.sql} and e.name ilike ?`,
        params: [...where.params, likePattern(filter.query)],
      }
    : where;
  const grouped = `select e.name, e.source, count(*) as occurrences, min(e.timestamp) as first_seen,
      max(e.timestamp) as last_seen from events e where ${conditions.sql} group by e.name, e.source`;
  const order = sorting
    .map(({ field, descending }) => `${nameSortColumns[field]} ${descending ? 'desc' : 'asc'}`)
    .join(', ');
  const [rows, [count]] = await Promise.all([
    em.execute<EventNameRow[]>(`${grouped} order by ${order}, name, source limit ? offset ?`, [
      ...conditions.params,
      page.limit,
      page.offset,
    ]),
    em.execute<{ total: string }[]>(`select count(*) as total from (${grouped}) names`, [
      ...conditions.params,
    ]),
  ]);
  return [rows, Number(count?.total ?? 0)];
}
