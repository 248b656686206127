import type { Operation } from '../http/openapi.ts';
import { taxReportQuery, taxReportSchema } from './schemas.ts';

/** The operations of taxReportRoutes (/v1/tax-report). */
export const taxReportOperations: Operation[] = [
  {
    method: 'get',
    path: '/v1/tax-report',
    operationId: 'tax-report:get',
    summary:
      'Tax collected per jurisdiction and month over a range of UTC days, net of refunds (format=csv for a CSV file)',
    tag: 'Tax Rates',
    scopes: ['orders:read'],
    query: taxReportQuery,
    response: { status: 200, schema: taxReportSchema },
  },
];
