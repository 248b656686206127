import Router from '@koa/router';
import { z } from 'zod';
import { authSettings } from '../../accounts/settings.ts';
import { listPaymentMismatches } from '../../commerce/reconciliation/service.ts';
import { purgeExpiredRecordsState } from '../../processes/purge-expired-records.ts';
import { startPurgeExpiredRecords } from '../../processes/starters.ts';
import { type UpkeepJob, upkeepScheduleIds } from '../../processes/upkeep.ts';
import { workflowIds } from '../../processes/workflow-ids.ts';
import { originGuard } from '../auth/origins.ts';
import type { AppDependencies } from '../dependencies.ts';
import { requireAdminSession } from '../middleware/admin-session.ts';
import { parseBody, parseParams, parseQuery } from '../validation.ts';

const purgeRequest = z.object({
  /** Cut-off; defaults to now, to the second, so a quick retry names the same workflow. */
  before: z.iso.datetime({ offset: true }).optional(),
});

const purgeParams = z.object({ before: z.iso.datetime({ offset: true }) });

const upkeepJobs = Object.keys(upkeepScheduleIds) as [UpkeepJob, ...UpkeepJob[]];
const upkeepParams = z.object({ job: z.enum(upkeepJobs) });

const mismatchQuery = z.object({ limit: z.coerce.number().int().min(1).max(500).default(100) });

/**
 * The operations API (/api/ops): the account tables' purge, the upkeep schedules and what the
 * payment reconciliation found. For platform admins, signed in as in the dashboard; a request
 * with the session cookie must come from a trusted origin.
 */
export function maintenanceRoutes({ config, orm, temporal }: AppDependencies): Router {
  const router = new Router({ prefix: '/api/ops' });
  const settings = authSettings(config);
  router.use(
    ['/maintenance', '/upkeep', '/reconciliation'],
    originGuard(settings.trustedOrigins),
    requireAdminSession(orm, settings, 'Only admins may use the operations API'),
  );

  router.post('/maintenance/purge-expired', async (ctx) => {
    const { before } = parseBody(ctx, purgeRequest);
    const cutOff = before ? new Date(before) : new Date(Math.floor(Date.now() / 1000) * 1000);
    // A retried request joins the workflow already running for the same cut-off.
    const handle = await startPurgeExpiredRecords(temporal, cutOff);
    ctx.status = 202;
    ctx.body = { workflowId: handle.workflowId, runId: handle.firstExecutionRunId };
  });

  router.get('/maintenance/purge-expired/:before', async (ctx) => {
    const { before } = parseParams(ctx.params, purgeParams);
    const handle = temporal.workflow.getHandle(workflowIds.purgeExpiredRecords(new Date(before)));
    ctx.body = await handle.query(purgeExpiredRecordsState);
  });

  // The periodic jobs: how often each runs, when it last ran and runs next.
  router.get('/upkeep', async (ctx) => {
    const items = await Promise.all(
      upkeepJobs.map(async (job) => {
        const scheduleId = upkeepScheduleIds[job];
        const schedule = await temporal.schedule.getHandle(scheduleId).describe();
        const last = schedule.info.recentActions.at(-1);
        return {
          job,
          scheduleId,
          everySeconds: schedule.spec.intervals?.[0]?.every
            ? Math.round(Number(schedule.spec.intervals[0].every) / 1000)
            : null,
          paused: schedule.state.paused,
          lastRunAt: last?.takenAt.toISOString() ?? null,
          lastWorkflowId: last?.action.workflow.workflowId ?? null,
          nextRunAt: schedule.info.nextActionTimes[0]?.toISOString() ?? null,
        };
      }),
    );
    ctx.body = { items };
  });

  // Runs a job now, as its schedule would.
  router.post('/upkeep/:job/trigger', async (ctx) => {
    const { job } = parseParams(ctx.params, upkeepParams);
    await temporal.schedule.getHandle(upkeepScheduleIds[job]).trigger();
    ctx.status = 202;
    ctx.body = { job, scheduleId: upkeepScheduleIds[job] };
  });

  router.get('/reconciliation/mismatches', async (ctx) => {
    const { limit } = parseQuery(ctx, mismatchQuery);
    const mismatches = await listPaymentMismatches(orm.em.fork(), limit);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      items: mismatches.map((mismatch) => ({
        ...mismatch,
        occurredAt: mismatch.occurredAt.toISOString(),
        detectedAt: mismatch.detectedAt.toISOString(),
        lastSeenAt: mismatch.lastSeenAt.toISOString(),
      })),
    };
  });

  return router;
}
