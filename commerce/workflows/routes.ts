import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { AppDependencies } from '../../api/dependencies.ts';
import { parseParams, parseQuery } from '../../api/validation.ts';
import {
  kindDefinitions,
  listWorkflows,
  type WorkflowServices,
  workflowInsight,
} from '../../processes/workflow-insight.ts';
import { callerOf, scope } from '../http/caller.ts';
import {
  fieldParameter,
  listParameters,
  listResource,
  pageParameters,
  readsList,
  valuesParameter,
} from '../http/listing.ts';
import {
  type WorkflowKind,
  workflowKindParams,
  workflowListQuery,
  workflowStatusInput,
} from './schemas.ts';

/** Reading a workflow takes the read scope of the entity it serves (`subscriptions:read`, …). */
const kindScope =
  (kindOf: (ctx: Parameters<Middleware>[0]) => WorkflowKind): Middleware =>
  (ctx, next) =>
    scope(kindDefinitions[kindOf(ctx)].scope)(ctx, next);

/** The query of the workflow list (documented by workflows:list). */
export const workflowListParameters = listParameters({
  type: fieldParameter(workflowListQuery, 'type'),
  statuses: valuesParameter('status', workflowStatusInput),
  page: pageParameters,
});

/**
 * /v1/workflows (Tollgate's own, for the dashboard's workflow panel): the workflow behind a
 * checkout, subscription, refund, benefit grant, webhook endpoint or invitation, read from
 * Temporal; only the caller's organization's.
 */
export function workflowRoutes({ orm, temporal, config }: AppDependencies): Router {
  const router = new Router({ prefix: '/v1/workflows' });
  const services = (): WorkflowServices => ({
    em: orm.em,
    temporal,
    namespace: config.temporal.namespace,
    webUiUrl: config.temporal.uiUrl,
  });
  const readKindParams = (ctx: Parameters<Middleware>[0]) =>
    parseParams(ctx.params as Record<string, string>, workflowKindParams);

  router.get(
    '/',
    kindScope((ctx) => parseQuery(ctx, workflowListQuery).type),
    readsList(workflowListParameters, async (ctx, { type, statuses, page }) => {
      const { matches, truncated } = await listWorkflows(
        services(),
        callerOf(ctx).organizationId,
        type,
        statuses,
      );
      ctx.body = {
        ...listResource(matches.slice(page.offset, page.offset + page.limit), matches.length, page),
        truncated,
      };
    }),
  );

  router.get(
    '/:kind/:entityId',
    kindScope((ctx) => readKindParams(ctx).kind),
    async (ctx) => {
      const { kind, entityId } = readKindParams(ctx);
      ctx.body = await workflowInsight(services(), callerOf(ctx).organizationId, kind, entityId);
    },
  );

  return router;
}
