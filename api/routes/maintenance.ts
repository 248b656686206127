import Router from '@koa/router';
import { z } from 'zod';
import { purgeExpiredRecordsState } from '../../processes/purge-expired-records.ts';
import { startPurgeExpiredRecords } from '../../processes/starters.ts';
import { workflowIds } from '../../processes/workflow-ids.ts';
import type { AppDependencies } from '../dependencies.ts';
import { requireOpsToken } from '../middleware/ops-token.ts';
import { parseBody, parseParams } from '../validation.ts';

const purgeRequest = z.object({
  /** Cut-off; defaults to now, to the second, so a quick retry names the same workflow. */
  before: z.iso.datetime({ offset: true }).optional(),
});

const purgeParams = z.object({ before: z.iso.datetime({ offset: true }) });

/** Operations on the account tables, each a Temporal workflow. */
export function maintenanceRoutes({ config, temporal }: AppDependencies): Router {
  const router = new Router({ prefix: '/api/ops/maintenance' });
  router.use(requireOpsToken(config.opsToken));

  router.post('/purge-expired', async (ctx) => {
    const { before } = parseBody(ctx, purgeRequest);
    const cutOff = before ? new Date(before) : new Date(Math.floor(Date.now() / 1000) * 1000);
    // A retried request joins the workflow already running for the same cut-off.
    const handle = await startPurgeExpiredRecords(temporal, cutOff);
    ctx.status = 202;
    ctx.body = { workflowId: handle.workflowId, runId: handle.firstExecutionRunId };
  });

  router.get('/purge-expired/:before', async (ctx) => {
    const { before } = parseParams(ctx.params, purgeParams);
    const handle = temporal.workflow.getHandle(workflowIds.purgeExpiredRecords(new Date(before)));
    ctx.body = await handle.query(purgeExpiredRecordsState);
  });

  return router;
}
