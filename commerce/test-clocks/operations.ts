import { idPath, type Operation, pageOf } from '../http/openapi.ts';
import { testClockListParameters } from './routes.ts';
import { testClockAdvanceInput, testClockCreateInput, testClockWireSchema } from './schemas.ts';

const tag = 'Test clocks';
const read = ['subscriptions:read', 'subscriptions:write'] as const;
const write = ['subscriptions:write'] as const;

/**
 * The operations of testClockRoutes (/v1/test-clocks, Tollgate's own): each answers 403
 * TestClockNotAvailable where test clocks are off (production, unless TOLLGATE_TEST_CLOCKS=on).
 */
export const testClockOperations: Operation[] = [
  {
    method: 'get',
    path: '/v1/test-clocks',
    operationId: 'test_clocks:list',
    summary: 'List test clocks',
    tag,
    scopes: read,
    query: testClockListParameters.schema,
    response: { status: 200, schema: pageOf(testClockWireSchema) },
  },
  {
    method: 'post',
    path: '/v1/test-clocks',
    operationId: 'test_clocks:create',
    summary: 'Create a test clock',
    tag,
    scopes: write,
    body: testClockCreateInput,
    response: { status: 201, schema: testClockWireSchema },
  },
  {
    method: 'get',
    path: '/v1/test-clocks/:id',
    operationId: 'test_clocks:get',
    summary: 'Get a test clock',
    tag,
    scopes: read,
    params: idPath,
    response: { status: 200, schema: testClockWireSchema },
    errors: [404],
  },
  {
    method: 'delete',
    path: '/v1/test-clocks/:id',
    operationId: 'test_clocks:delete',
    summary: 'Delete a test clock',
    tag,
    scopes: write,
    params: idPath,
    response: { status: 204 },
    errors: [404],
  },
  {
    method: 'post',
    path: '/v1/test-clocks/:id/advance',
    operationId: 'test_clocks:advance',
    summary: 'Move a test clock forward; its subscriptions renew in their workflows',
    tag,
    scopes: write,
    params: idPath,
    body: testClockAdvanceInput,
    response: { status: 200, schema: testClockWireSchema },
    errors: [404, 409],
  },
];
