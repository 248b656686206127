import { idPath, type Operation, pageOf } from '../http/openapi.ts';
import { meterListParameters } from './routes.ts';
import {
  meterCreateInput,
  meterQuantitiesQuery,
  meterQuantitiesWireSchema,
  meterUpdateInput,
  meterWireSchema,
} from './schemas.ts';

const tag = 'Meters';
const read = ['meters:read', 'meters:write'] as const;
const write = ['meters:write'] as const;

/** The operations of meterRoutes (/v1/meters). */
export const meterOperations: Operation[] = [
  {
    method: 'get',
    path: '/v1/meters',
    operationId: 'meters:list',
    summary: 'List meters',
    tag,
    scopes: read,
    query: meterListParameters.schema,
    response: { status: 200, schema: pageOf(meterWireSchema) },
  },
  {
    method: 'post',
    path: '/v1/meters',
    operationId: 'meters:create',
    summary: 'Create a meter',
    tag,
    scopes: write,
    body: meterCreateInput,
    response: { status: 201, schema: meterWireSchema },
  },
  {
    method: 'get',
    path: '/v1/meters/:id',
    operationId: 'meters:get',
    summary: 'Get a meter',
    tag,
    scopes: read,
    params: idPath,
    response: { status: 200, schema: meterWireSchema },
    errors: [404],
  },
  {
    method: 'patch',
    path: '/v1/meters/:id',
    operationId: 'meters:update',
    summary: 'Update a meter',
    tag,
    scopes: write,
    params: idPath,
    body: meterUpdateInput,
    response: { status: 200, schema: meterWireSchema },
    errors: [404],
  },
  {
    method: 'get',
    path: '/v1/meters/:id/quantities',
    operationId: 'meters:quantities',
    summary: 'The quantities of a meter over a period, by interval',
    tag,
    scopes: read,
    params: idPath,
    query: meterQuantitiesQuery,
    response: { status: 200, schema: meterQuantitiesWireSchema },
    errors: [404],
  },
];
