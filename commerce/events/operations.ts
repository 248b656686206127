import { idPath, type Operation, pageOf } from '../http/openapi.ts';
import { eventListParameters, eventNameListParameters } from './routes.ts';
import {
  eventNameWireSchema,
  eventsIngestInput,
  eventsIngestWireSchema,
  eventWireSchema,
} from './schemas.ts';

const tag = 'Events';
const read = ['events:read', 'events:write'] as const;
const write = ['events:write'] as const;

/** The operations of eventRoutes (/v1/events). */
export const eventOperations: Operation[] = [
  {
    method: 'post',
    path: '/v1/events/ingest',
    operationId: 'events:ingest',
    summary: 'Ingest usage events (up to 10,000 or 10 MB; gzip or deflate allowed)',
    tag,
    scopes: write,
    body: eventsIngestInput,
    response: { status: 200, schema: eventsIngestWireSchema },
    errors: [413],
  },
  {
    method: 'get',
    path: '/v1/events',
    operationId: 'events:list',
    summary: 'List events',
    tag,
    scopes: read,
    query: eventListParameters.schema,
    response: { status: 200, schema: pageOf(eventWireSchema) },
  },
  {
    method: 'get',
    path: '/v1/events/names',
    operationId: 'events:list_names',
    summary: 'List event names, with counts',
    tag,
    scopes: read,
    query: eventNameListParameters.schema,
    response: { status: 200, schema: pageOf(eventNameWireSchema) },
  },
  {
    method: 'get',
    path: '/v1/events/:id',
    operationId: 'events:get',
    summary: 'Get an event',
    tag,
    scopes: read,
    params: idPath,
    response: { status: 200, schema: eventWireSchema },
    errors: [404],
  },
];
