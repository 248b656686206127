import { z } from 'zod';
import { idPath, type Operation, pageOf } from '../http/openapi.ts';
import { balanceEntryListParameters, customerListParameters } from './routes.ts';
import {
  customerBalanceAdjustmentInput,
  customerBalanceAdjustmentWireSchema,
  customerBalanceEntryWireSchema,
  customerBalanceQuery,
  customerBalanceWireSchema,
  customerCreateInput,
  customerExternalIdParams,
  customerStateWireSchema,
  customerUpdateByExternalIdInput,
  customerUpdateInput,
  customerWireSchema,
} from './schemas.ts';

const tag = 'Customers';
const read = ['customers:read', 'customers:write'] as const;
const write = ['customers:write'] as const;

/** The operations of customerRoutes (/v1/customers). */
export const customerOperations: Operation[] = [
  {
    method: 'get',
    path: '/v1/customers',
    operationId: 'customers:list',
    summary: 'List customers',
    tag,
    scopes: read,
    query: customerListParameters.schema,
    response: { status: 200, schema: pageOf(customerWireSchema) },
  },
  {
    method: 'post',
    path: '/v1/customers',
    operationId: 'customers:create',
    summary: 'Create a customer',
    tag,
    scopes: write,
    body: customerCreateInput,
    response: { status: 201, schema: customerWireSchema },
  },
  {
    method: 'get',
    path: '/v1/customers/export',
    operationId: 'customers:export',
    summary: 'Export every customer (a JSON array, where Polar streams CSV)',
    tag,
    scopes: read,
    response: { status: 200, schema: z.array(customerWireSchema) },
  },
  ...(
    [
      {
        path: '/v1/customers/external/:external_id',
        suffix: '_external',
        by: 'by external id',
        params: customerExternalIdParams,
        body: customerUpdateByExternalIdInput,
      },
      {
        path: '/v1/customers/:id',
        suffix: '',
        by: '',
        params: idPath,
        body: customerUpdateInput,
      },
    ] as const
  ).flatMap(({ path, suffix, by, params, body }): Operation[] => {
    const addressed = (summary: string) => (by ? `${summary} ${by}` : summary);
    return [
      {
        method: 'get',
        path,
        operationId: `customers:get${suffix}`,
        summary: addressed('Get a customer'),
        tag,
        scopes: read,
        params,
        response: { status: 200, schema: customerWireSchema },
        errors: [404],
      },
      {
        method: 'patch',
        path,
        operationId: `customers:update${suffix}`,
        summary: addressed('Update a customer'),
        tag,
        scopes: write,
        params,
        body,
        response: { status: 200, schema: customerWireSchema },
        errors: [404],
      },
      {
        method: 'delete',
        path,
        operationId: `customers:delete${suffix}`,
        summary: addressed('Delete a customer, ending its subscriptions and revoking its benefits'),
        tag,
        scopes: write,
        params,
        response: { status: 204 },
        errors: [404],
      },
      {
        method: 'get',
        path: `${path}/state`,
        operationId: `customers:get_state${suffix}`,
        summary: addressed('Get what a customer has now (subscriptions, benefits, meters)'),
        tag,
        scopes: read,
        params,
        response: { status: 200, schema: customerStateWireSchema },
        errors: [404],
      },
    ];
  }),
  {
    method: 'get',
    path: '/v1/customers/:id/balance',
    operationId: 'customers:get_balance',
    summary: 'Get a customer’s balance',
    tag,
    scopes: read,
    params: idPath,
    query: customerBalanceQuery,
    response: { status: 200, schema: customerBalanceWireSchema },
    errors: [404],
  },
  {
    method: 'get',
    path: '/v1/customers/:id/balance/entries',
    operationId: 'customers:list_balance_entries',
    summary: 'List the entries of a customer’s balance ledger, newest first (Tollgate’s)',
    tag,
    scopes: read,
    params: idPath,
    query: balanceEntryListParameters.schema,
    response: { status: 200, schema: pageOf(customerBalanceEntryWireSchema) },
    errors: [404],
  },
  {
    method: 'post',
    path: '/v1/customers/:id/balance/adjustments',
    operationId: 'customers:adjust_balance',
    summary: 'Credit (or debit) a customer’s balance with a reason (Tollgate’s)',
    tag,
    scopes: write,
    params: idPath,
    body: customerBalanceAdjustmentInput,
    response: { status: 201, schema: customerBalanceAdjustmentWireSchema },
    errors: [404],
  },
];
