import { idPath, type Operation, pageOf } from '../http/openapi.ts';
import { customFieldListParameters } from './routes.ts';
import {
  customFieldCreateInput,
  customFieldUpdateInput,
  customFieldWireSchema,
} from './schemas.ts';

const tag = 'Custom Fields';
const read = ['custom_fields:read', 'custom_fields:write'] as const;
const write = ['custom_fields:write'] as const;

/** The operations of customFieldRoutes (/v1/custom-fields). */
export const customFieldOperations: Operation[] = [
  {
    method: 'get',
    path: '/v1/custom-fields',
    operationId: 'custom-fields:list',
    summary: 'List custom fields',
    tag,
    scopes: read,
    query: customFieldListParameters.schema,
    response: { status: 200, schema: pageOf(customFieldWireSchema) },
  },
  {
    method: 'post',
    path: '/v1/custom-fields',
    operationId: 'custom-fields:create',
    summary: 'Create a custom field',
    tag,
    scopes: write,
    body: customFieldCreateInput,
    response: { status: 201, schema: customFieldWireSchema },
  },
  {
    method: 'get',
    path: '/v1/custom-fields/:id',
    operationId: 'custom-fields:get',
    summary: 'Get a custom field',
    tag,
    scopes: read,
    params: idPath,
    response: { status: 200, schema: customFieldWireSchema },
    errors: [404],
  },
  {
    method: 'patch',
    path: '/v1/custom-fields/:id',
    operationId: 'custom-fields:update',
    summary: 'Update a custom field',
    tag,
    scopes: write,
    params: idPath,
    body: customFieldUpdateInput,
    response: { status: 200, schema: customFieldWireSchema },
    errors: [404],
  },
  {
    method: 'delete',
    path: '/v1/custom-fields/:id',
    operationId: 'custom-fields:delete',
    summary: 'Delete a custom field',
    tag,
    scopes: write,
    params: idPath,
    response: { status: 204 },
    errors: [404],
  },
];
