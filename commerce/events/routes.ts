import Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import type { AppDependencies } from '../../api/dependencies.ts';
import { parseBody, parseQuery } from '../../api/validation.ts';
import { RequestValidationError } from '../../core/errors.ts';
import type { MeterFilter } from '../../domain/meter-filter.ts';
import { callerOf, scope } from '../http/caller.ts';
import {
  listRoute,
  queryValues,
  readMetadataFilter,
  readPage,
  readQueryIds,
  readQueryList,
  readSorting,
} from '../http/listing.ts';
import { readIdParam } from '../http/request.ts';
import { meterFilterInput } from '../meters/schemas.ts';
import {
  eventListQuery,
  eventNameListQuery,
  eventNameSortFields,
  eventNameWire,
  eventSortFields,
  eventSources,
  eventsIngestInput,
  eventWire,
} from './schemas.ts';
import { customersOf, getEvent, ingestEvents, listEventNames, listEvents } from './service.ts';

const sourceQuery = z.enum(eventSources);

/** `?filter=`: a meter filter as a JSON string; malformed JSON or shape answers 422 there. */
function readFilter(text: string | undefined): MeterFilter | undefined {
  if (text === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new RequestValidationError([
      { loc: ['query', 'filter'], msg: 'Invalid JSON.', type: 'json_invalid' },
    ]);
  }
  const parsed = meterFilterInput.safeParse(json);
  if (!parsed.success) {
    throw RequestValidationError.fromZod(
      'query',
      parsed.error.issues.map((issue) => ({ ...issue, path: ['filter', ...issue.path] })),
    );
  }
  return parsed.data;
}

const customerFilters = (ctx: Context) => ({
  customerIds: readQueryIds(ctx, 'customer_id'),
  externalCustomerIds: queryValues(ctx, 'external_customer_id'),
  sources: readQueryList(ctx, 'source', sourceQuery),
});

/** /v1/events: usage events, ingested in batches, listed with meter filters. */
export function eventRoutes({ orm, logger }: AppDependencies): Router {
  const router = new Router({ prefix: '/v1/events' });

  // Polar answers `{inserted}`; the SDK ignores the other fields, which report what was not.
  router.post(['/ingest', '/ingest/'], scope('events:write'), async (ctx) => {
    const caller = callerOf(ctx);
    const { events } = parseBody(ctx, eventsIngestInput);
    const result = await ingestEvents(
      orm.em,
      {
        organizationId: caller.organizationId,
        mayNameOrganization: caller.kind !== 'organization_token',
      },
      events,
    );
    for (const late of result.lateUsage) {
      logger.warn(
        { organizationId: caller.organizationId, ...late },
        'usage arrived for a billed period: counted as late usage, not billed',
      );
    }
    ctx.body = {
      inserted: result.inserted,
      duplicates: result.duplicates,
      errors: result.errors,
    };
  });

  router.get(
    '/',
    scope('events:read'),
    listRoute({
      read: (ctx) => {
        const query = parseQuery(ctx, eventListQuery);
        return {
          page: readPage(ctx),
          sorting: readSorting(ctx, eventSortFields, '-timestamp'),
          filter: readFilter(query.filter),
          startTimestamp: query.start_timestamp,
          endTimestamp: query.end_timestamp,
          meterId: query.meter_id,
          names: queryValues(ctx, 'name'),
          metadata: readMetadataFilter(ctx),
          ...customerFilters(ctx),
        };
      },
      list: (caller, query) => listEvents(orm.em, caller.organizationId, query),
      serialize: async (events) => {
        const customers = await customersOf(orm.em, events);
        return events.map((event) =>
          eventWire(event, event.customer ? (customers.get(event.customer.id) ?? null) : null),
        );
      },
    }),
  );

  router.get(
    ['/names', '/names/'],
    scope('events:read'),
    listRoute({
      read: (ctx) => ({
        query: parseQuery(ctx, eventNameListQuery).query,
        page: readPage(ctx),
        sorting: readSorting(ctx, eventNameSortFields, '-last_seen'),
        ...customerFilters(ctx),
      }),
      list: (caller, query) => listEventNames(orm.em, caller.organizationId, query),
      serialize: (rows) => rows.map(eventNameWire),
    }),
  );

  router.get('/:id', scope('events:read'), async (ctx) => {
    const id = readIdParam(ctx);
    const event = await getEvent(orm.em, callerOf(ctx).organizationId, id);
    const customers = await customersOf(orm.em, [event]);
    ctx.body = eventWire(event, event.customer ? (customers.get(event.customer.id) ?? null) : null);
  });

  return router;
}
