import type { Operation } from '../http/openapi.ts';
import { metricsLimitsWireSchema, metricsQuery, metricsWireSchema } from './schemas.ts';

const tag = 'Metrics';
const read = ['metrics:read', 'metrics:write'] as const;

/** The operations of metricRoutes (/v1/metrics). */
export const metricOperations: Operation[] = [
  {
    method: 'get',
    path: '/v1/metrics',
    operationId: 'metrics:get',
    summary: 'Metrics over a period, by interval',
    tag,
    scopes: read,
    query: metricsQuery,
    response: { status: 200, schema: metricsWireSchema },
  },
  {
    method: 'get',
    path: '/v1/metrics/limits',
    operationId: 'metrics:limits',
    summary: 'The periods metrics can answer',
    tag,
    scopes: read,
    response: { status: 200, schema: metricsLimitsWireSchema },
  },
];
