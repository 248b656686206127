import { pipeline, type Readable, type Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import type { AppDependencies } from '../../api/dependencies.ts';
import { findUnstorableText, unstorableMessage } from '../../api/middleware/input-sanity.ts';
import { AppError, RequestValidationError } from '../../core/errors.ts';
import type { MeterFilter } from '../../domain/meter-filter.ts';
import { callerOf, scope } from '../http/caller.ts';
import {
  fieldParameter,
  idsParameter,
  listParameters,
  listRoute,
  mapParameter,
  metadataParameter,
  pageParameters,
  sortingParameter,
  textsParameter,
  valuesParameter,
} from '../http/listing.ts';
import { readIdParam } from '../http/request.ts';
import { meterFilterInput } from '../meters/schemas.ts';
import { eventsOfBody } from './ingest-body.ts';
import {
  eventListQuery,
  eventNameListQuery,
  eventNameSortFields,
  eventNameWire,
  eventSortFields,
  eventSources,
  eventWire,
  maxIngestBodyBytes,
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

const customerFilterParameters = {
  customerIds: idsParameter('customer_id'),
  externalCustomerIds: textsParameter('external_customer_id'),
  sources: valuesParameter('source', sourceQuery),
};

/** The ingest paths, whose bodies the body parser leaves to the route (api/app.ts). */
const ingestRoutePaths = ['/ingest', '/ingest/'];
export const ingestPaths = ingestRoutePaths.map((path) => `/v1/events${path}`);

const decompressors: Record<string, () => Transform> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/**
 * The request's body bytes, decompressed as the body parser would; none when it is not JSON
 * (the envelope then answers 422, as for an empty body). Refused at once when its declared
 * length is over the limit.
 */
function requestBody(ctx: Context): Readable | null {
  if (!ctx.is('json')) return null;
  if (Number(ctx.get('content-length')) > maxIngestBodyBytes) {
    // The rest of the body is read and dropped, so that the client hears the answer.
    ctx.req.resume();
    throw new AppError(
      'too_large',
      'PAYLOAD_TOO_LARGE',
      `An ingest request body holds at most ${maxIngestBodyBytes / 1024 / 1024} MB`,
    );
  }
  const encoding = ctx.get('content-encoding').toLowerCase() || 'identity';
  if (encoding === 'identity') return ctx.req;
  const decompressor = decompressors[encoding];
  if (!decompressor) {
    throw new AppError(
      'invalid',
      'UNSUPPORTED_CONTENT_ENCODING',
      `Unsupported Content-Encoding: ${encoding}`,
    );
  }
  const decompressed = decompressor();
  pipeline(ctx.req, decompressed, () => {});
  return decompressed;
}

/**
 * The chunks of `body`, read so that stopping early (a refused event) leaves the stream alive:
 * the rest is then drained, and the connection stays usable for the client's next request.
 */
const chunksOf = (body: Readable | null): AsyncIterable<Uint8Array> | Uint8Array[] =>
  body ? body.iterator({ destroyOnReturn: false }) : [];

/** The events, each refused (422, whole batch) when it holds text the database cannot store. */
async function* storableEvents(events: AsyncIterable<unknown>): AsyncGenerator<unknown> {
  let index = 0;
  for await (const event of events) {
    const loc = findUnstorableText(event, 'body');
    if (loc) {
      throw new RequestValidationError([
        {
          loc: ['body', 'events', index, ...loc.slice(1)],
          msg: unstorableMessage,
          type: 'string_unstorable',
        },
      ]);
    }
    index++;
    yield event;
  }
}

/** The query of the event list (documented by events:list). */
export const eventListParameters = listParameters({
  // Parses all of eventListQuery, refused first as always.
  startTimestamp: fieldParameter(eventListQuery, 'start_timestamp'),
  page: pageParameters,
  sorting: sortingParameter(eventSortFields, '-timestamp'),
  filter: mapParameter(fieldParameter(eventListQuery, 'filter'), readFilter),
  endTimestamp: fieldParameter(eventListQuery, 'end_timestamp'),
  meterId: fieldParameter(eventListQuery, 'meter_id'),
  names: textsParameter('name'),
  metadata: metadataParameter,
  ...customerFilterParameters,
  organizationIds: idsParameter('organization_id'),
});

/** The query of the event name list (documented by events:list_names). */
export const eventNameListParameters = listParameters({
  query: fieldParameter(eventNameListQuery, 'query'),
  page: pageParameters,
  sorting: sortingParameter(eventNameSortFields, '-last_seen'),
  ...customerFilterParameters,
  organizationIds: idsParameter('organization_id'),
});

/** /v1/events: usage events, ingested in batches, listed with meter filters. */
export function eventRoutes({ orm, logger }: AppDependencies): Router {
  const router = new Router({ prefix: '/v1/events' });

  // Polar answers `{inserted}`; the SDK ignores `duplicates`. The body parser leaves this path
  // alone (`ingestPaths`): the events are read and checked as the body arrives.
  router.post(ingestRoutePaths, scope('events:write'), async (ctx) => {
    const caller = callerOf(ctx);
    const body = requestBody(ctx);
    const result = await ingestEvents(
      orm.em,
      {
        organizationId: caller.organizationId,
        mayNameOrganization: caller.kind !== 'organization_token',
      },
      storableEvents(eventsOfBody(chunksOf(body))),
    ).catch((error: unknown) => {
      // Refused before the body's end: the rest is read and dropped, so the client hears why.
      body?.resume();
      throw error;
    });
    for (const late of result.lateUsage) {
      logger.warn(
        { organizationId: caller.organizationId, ...late },
        'usage arrived for a billed period: counted as late usage, not billed',
      );
    }
    ctx.body = { inserted: result.inserted, duplicates: result.duplicates };
  });

  router.get(
    '/',
    scope('events:read'),
    listRoute({
      query: eventListParameters,
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
      query: eventNameListParameters,
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
