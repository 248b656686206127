import { idPath, type Operation, pageOf } from '../http/openapi.ts';
import { customerCustomerMeterListParameters, customerMeterListParameters } from './routes.ts';
import { customerCustomerMeterWireSchema, customerMeterWireSchema } from './schemas.ts';

const read = ['customer_meters:read'] as const;

/** The operations of customerMeterRoutes (/v1/customer-meters). */
export const customerMeterOperations: Operation[] = [
  {
    method: 'get',
    path: '/v1/customer-meters',
    operationId: 'customer_meters:list',
    summary: 'List customers’ standings on meters',
    tag: 'Customer meters',
    scopes: read,
    query: customerMeterListParameters.schema,
    response: { status: 200, schema: pageOf(customerMeterWireSchema) },
  },
  {
    method: 'get',
    path: '/v1/customer-meters/:id',
    operationId: 'customer_meters:get',
    summary: 'Get a customer’s standing on a meter',
    tag: 'Customer meters',
    scopes: read,
    params: idPath,
    response: { status: 200, schema: customerMeterWireSchema },
    errors: [404],
  },
];

/** The operations of customerPortalMeterRoutes (/v1/customer-portal/meters). */
export const customerPortalMeterOperations: Operation[] = [
  {
    method: 'get',
    path: '/v1/customer-portal/meters/',
    operationId: 'customer_portal:customer_meters:list',
    summary: 'List the customer’s standing on each meter',
    tag: 'Customer Portal',
    auth: 'customer',
    query: customerCustomerMeterListParameters.schema,
    response: { status: 200, schema: pageOf(customerCustomerMeterWireSchema) },
  },
  {
    method: 'get',
    path: '/v1/customer-portal/meters/:id',
    operationId: 'customer_portal:customer_meters:get',
    summary: 'Get the customer’s standing on a meter',
    tag: 'Customer Portal',
    auth: 'customer',
    params: idPath,
    response: { status: 200, schema: customerCustomerMeterWireSchema },
    errors: [404],
  },
];
