import Router from '@koa/router';
import { type UpdateDefinition, WorkflowNotFoundError } from '@temporalio/client';
import type { AppDependencies } from '../../api/dependencies.ts';
import { parseBody } from '../../api/validation.ts';
import type {
  SubscriptionChange,
  SubscriptionChangeResult,
} from '../../domain/subscription-schedule.ts';
import { refusalFromWorkflowFailure } from '../../processes/activity-errors.ts';
import { updateSubscription } from '../../processes/starters.ts';
import {
  changeSubscriptionUpdate,
  type DunningAction,
  dunningActionUpdate,
  subscriptionStateQuery,
} from '../../processes/subscription-messages.ts';
import { workflowIds } from '../../processes/workflow-ids.ts';
import { commerceError, resourceNotFound } from '../errors.ts';
import { callerOf, scope } from '../http/caller.ts';
import {
  listResource,
  listRoute,
  readMetadataFilter,
  readPage,
  readQueryBoolean,
  readQueryIds,
  readQueryList,
  readSorting,
} from '../http/listing.ts';
import { readIdParam } from '../http/request.ts';
import { hasEnded } from './changes.ts';
import {
  failedRenewalSortFields,
  failedRenewalStatusFilter,
  failedRenewalWire,
  subscriptionSortFields,
  subscriptionStatusFilter,
  subscriptionUpdateInput,
} from './schemas.ts';
import {
  amountsAtRisk,
  externalIdFilter,
  failedRenewalTotals,
  getSubscription,
  listFailedRenewals,
  listSubscriptions,
  serializeSubscriptions,
} from './service.ts';

/** The finance actions on a failed renewal, by the path that asks for them. */
const dunningActions: Record<string, DunningAction> = {
  retry: 'retry_now',
  cancel: 'cancel',
  resolve: 'mark_resolved',
};

/**
 * /v1/subscriptions: what customers subscribe to, and their changes. Every change of a live
 * subscription is an update of its workflow (`subscription:<id>`, started if it is not running),
 * which applies it between renewals; a refusal comes back as the API's error.
 */
export function subscriptionRoutes({ orm, config, temporal }: AppDependencies): Router {
  const router = new Router({ prefix: '/v1/subscriptions' });
  const { publicUrl } = config.api;

  /** Sends the subscription's workflow an update and answers the subscription it returns. */
  async function updateWorkflow<Arg>(
    subscriptionId: string,
    update: UpdateDefinition<SubscriptionChangeResult, [Arg]>,
    arg: Arg,
  ): Promise<Record<string, unknown>> {
    try {
      const result = await updateSubscription(temporal, subscriptionId, update, arg);
      return result.subscription;
    } catch (error) {
      throw refusalFromWorkflowFailure(error) ?? error;
    }
  }

  /** A change of the caller's subscription `id`; an ended one is refused without Temporal. */
  async function changeSubscription(
    organizationId: string,
    id: string,
    change: SubscriptionChange,
  ) {
    const subscription = await getSubscription(orm.em.fork(), organizationId, id);
    if (hasEnded(subscription)) throw commerceError('AlreadyCanceledSubscription');
    return updateWorkflow(subscription.id, changeSubscriptionUpdate, change);
  }

  router.get(
    '/',
    scope('subscriptions:read'),
    listRoute({
      read: (ctx) => ({
        page: readPage(ctx),
        sorting: readSorting(ctx, subscriptionSortFields, '-started_at'),
        productIds: readQueryIds(ctx, 'product_id'),
        customerIds: readQueryIds(ctx, 'customer_id'),
        externalCustomerIds: readQueryList(ctx, 'external_customer_id', externalIdFilter),
        discountIds: readQueryIds(ctx, 'discount_id'),
        active: readQueryBoolean(ctx, 'active'),
        statuses: readQueryList(ctx, 'status', subscriptionStatusFilter),
        metadata: readMetadataFilter(ctx),
      }),
      list: (caller, query) => listSubscriptions(orm.em, caller.organizationId, query),
      serialize: (subscriptions) => serializeSubscriptions(orm.em, subscriptions, publicUrl),
    }),
  );

  /**
   * Finance's list (Tollgate's own): past-due and unpaid subscriptions with their dunning and
   * the amount at risk, and `totals` per currency over all of them (not only this page).
   */
  router.get('/failed-renewals', scope('subscriptions:read'), async (ctx) => {
    const { organizationId } = callerOf(ctx);
    const page = readPage(ctx);
    const sorting = readSorting(ctx, failedRenewalSortFields, 'past_due_at');
    const statuses = readQueryList(ctx, 'status', failedRenewalStatusFilter);
    const [[subscriptions, total], totals] = await Promise.all([
      listFailedRenewals(orm.em.fork(), organizationId, { statuses, sorting, page }),
      failedRenewalTotals(orm.em.fork(), organizationId, statuses),
    ]);
    const amounts = await amountsAtRisk(orm.em.fork(), subscriptions);
    const items = subscriptions.map((subscription) =>
      failedRenewalWire(subscription, amounts.get(subscription.id) ?? null),
    );
    ctx.body = { ...listResource(items, total, page), totals };
  });

  router.get('/:id', scope('subscriptions:read'), async (ctx) => {
    const id = readIdParam(ctx);
    const subscription = await getSubscription(orm.em, callerOf(ctx).organizationId, id);
    const [wire] = await serializeSubscriptions(orm.em, [subscription], publicUrl);
    ctx.body = wire;
  });

  router.patch('/:id', scope('subscriptions:write'), async (ctx) => {
    const id = readIdParam(ctx);
    const change = parseBody(ctx, subscriptionUpdateInput);
    ctx.body = await changeSubscription(callerOf(ctx).organizationId, id, change);
  });

  router.delete('/:id', scope('subscriptions:write'), async (ctx) => {
    const id = readIdParam(ctx);
    const change = { kind: 'revoke', reason: null, comment: null } as const;
    ctx.body = await changeSubscription(callerOf(ctx).organizationId, id, change);
  });

  // Finance's actions on a failed renewal (Tollgate's own, for the dashboard).
  router.post('/:id/dunning/:action', scope('subscriptions:write'), async (ctx) => {
    const id = readIdParam(ctx);
    const subscription = await getSubscription(orm.em.fork(), callerOf(ctx).organizationId, id);
    const action = dunningActions[ctx.params.action ?? ''];
    if (!action) throw resourceNotFound();
    if (subscription.status !== 'past_due' && subscription.status !== 'unpaid') {
      throw commerceError('NotPastDueSubscription');
    }
    ctx.body = await updateWorkflow(subscription.id, dunningActionUpdate, action);
  });

  /** What the subscription's workflow is doing: its schedule, next action and last periods. */
  router.get('/:id/workflow', scope('subscriptions:read'), async (ctx) => {
    const id = readIdParam(ctx);
    const subscription = await getSubscription(orm.em, callerOf(ctx).organizationId, id);
    try {
      ctx.body = await temporal.workflow
        .getHandle(workflowIds.subscription(subscription.id))
        .query(subscriptionStateQuery);
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) throw resourceNotFound('Workflow not found');
      throw error;
    }
  });

  return router;
}
