import { idPath, type Operation, pageOf } from '../http/openapi.ts';
import { taxRateListParameters } from './routes.ts';
import { taxRateCreateInput, taxRateUpdateInput, taxRateWireSchema } from './schemas.ts';

const tag = 'Tax Rates';
const read = ['organizations:read', 'organizations:write'] as const;
const write = ['organizations:write'] as const;

/** The operations of taxRateRoutes (/v1/tax-rates). */
export const taxRateOperations: Operation[] = [
  {
    method: 'get',
    path: '/v1/tax-rates',
    operationId: 'tax-rates:list',
    summary: 'List tax rates',
    tag,
    scopes: read,
    query: taxRateListParameters.schema,
    response: { status: 200, schema: pageOf(taxRateWireSchema) },
  },
  {
    method: 'post',
    path: '/v1/tax-rates',
    operationId: 'tax-rates:create',
    summary: 'Create a tax rate',
    tag,
    scopes: write,
    body: taxRateCreateInput,
    response: { status: 201, schema: taxRateWireSchema },
    errors: [409],
  },
  {
    method: 'get',
    path: '/v1/tax-rates/:id',
    operationId: 'tax-rates:get',
    summary: 'Get a tax rate',
    tag,
    scopes: read,
    params: idPath,
    response: { status: 200, schema: taxRateWireSchema },
    errors: [404],
  },
  {
    method: 'patch',
    path: '/v1/tax-rates/:id',
    operationId: 'tax-rates:update',
    summary: 'Update a tax rate',
    tag,
    scopes: write,
    params: idPath,
    body: taxRateUpdateInput,
    response: { status: 200, schema: taxRateWireSchema },
    errors: [404],
  },
  {
    method: 'delete',
    path: '/v1/tax-rates/:id',
    operationId: 'tax-rates:delete',
    summary: 'Delete a tax rate',
    tag,
    scopes: write,
    params: idPath,
    response: { status: 204 },
    errors: [404],
  },
];
