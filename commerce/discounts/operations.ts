import { idPath, type Operation, pageOf } from '../http/openapi.ts';
import { discountListParameters } from './routes.ts';
import { discountCreateInput, discountUpdateInput, discountWireSchema } from './schemas.ts';

const tag = 'Discounts';
const read = ['discounts:read', 'discounts:write'] as const;
const write = ['discounts:write'] as const;

/** The operations of discountRoutes (/v1/discounts). */
export const discountOperations: Operation[] = [
  {
    method: 'get',
    path: '/v1/discounts',
    operationId: 'discounts:list',
    summary: 'List discounts',
    tag,
    scopes: read,
    query: discountListParameters.schema,
    response: { status: 200, schema: pageOf(discountWireSchema) },
  },
  {
    method: 'post',
    path: '/v1/discounts',
    operationId: 'discounts:create',
    summary: 'Create a discount',
    tag,
    scopes: write,
    body: discountCreateInput,
    response: { status: 201, schema: discountWireSchema },
  },
  {
    method: 'get',
    path: '/v1/discounts/:id',
    operationId: 'discounts:get',
    summary: 'Get a discount',
    tag,
    scopes: read,
    params: idPath,
    response: { status: 200, schema: discountWireSchema },
    errors: [404],
  },
  {
    method: 'patch',
    path: '/v1/discounts/:id',
    operationId: 'discounts:update',
    summary: 'Update a discount',
    tag,
    scopes: write,
    params: idPath,
    body: discountUpdateInput,
    response: { status: 200, schema: discountWireSchema },
    errors: [404],
  },
  {
    method: 'delete',
    path: '/v1/discounts/:id',
    operationId: 'discounts:delete',
    summary: 'Delete a discount',
    tag,
    scopes: write,
    params: idPath,
    response: { status: 204 },
    errors: [404],
  },
];
