import Router from '@koa/router';
import type { AppDependencies } from '../../api/dependencies.ts';
import { parseQuery } from '../../api/validation.ts';
import { callerOf, scope } from '../http/caller.ts';
import { answerCsv } from '../http/csv.ts';
import { checkTaxReportRange, taxReportQuery, taxReportRowWire } from './schemas.ts';
import { taxReport, taxReportCsvRow, taxReportHeader } from './service.ts';

/** GET /v1/tax-report (Tollgate's own, issue 22): tax collected per jurisdiction and month. */
export function taxReportRoutes({ orm }: AppDependencies): Router {
  const router = new Router({ prefix: '/v1/tax-report' });

  router.get('/', scope('orders:read'), async (ctx) => {
    const caller = callerOf(ctx);
    const query = parseQuery(ctx, taxReportQuery);
    checkTaxReportRange(query);
    const rows = await taxReport(orm.em.fork(), caller.organizationId, query);
    if (query.format === 'csv') {
      const filename = `tax-report-${query.start_date}-${query.end_date}.csv`;
      answerCsv(ctx, filename, taxReportHeader, rows.map(taxReportCsvRow));
      return;
    }
    ctx.body = { items: rows.map(taxReportRowWire) };
  });

  return router;
}
