import { randomUUID } from 'node:crypto';
import Router from '@koa/router';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { z } from 'zod';
import type { AppDependencies } from '../../api/dependencies.ts';
import { parseBody } from '../../api/validation.ts';
import type { Customer } from '../../db/entities/index.ts';
import type { SubscriptionChange } from '../../domain/subscription-schedule.ts';
import { subscriptionUpdateCard } from '../../integrations/mail/templates.ts';
import { sendEmail } from '../../processes/starters.ts';
import {
  type DunningAction,
  dunningActionUpdate,
  subscriptionStateQuery,
} from '../../processes/subscription-messages.ts';
import { workflowIds } from '../../processes/workflow-ids.ts';
import { commerceError, resourceNotFound } from '../errors.ts';
import { callerOf, scope } from '../http/caller.ts';
import { answerCsv } from '../http/csv.ts';
import { sessionCustomerOf } from '../http/customer-session.ts';
import {
  booleanParameter,
  fieldParameter,
  idsParameter,
  listParameters,
  listResource,
  listRoute,
  metadataParameter,
  organizationFilterMatches,
  pageParameters,
  readsList,
  sortingParameter,
  valuesParameter,
} from '../http/listing.ts';
import { portalGate } from '../http/portal.ts';
import { readIdParam } from '../http/request.ts';
import { changeSubscription, updateSubscriptionWorkflow } from '../http/subscription-changes.ts';
import { subscriptionExportHeader, subscriptionExportRows } from './export.ts';
import {
  assertCustomerMayChange,
  getCustomerSubscription,
  listCustomerSubscriptions,
  serializeCustomerSubscriptions,
  toCustomerSubscriptions,
} from './portal.ts';
import { failedRenewalNotice, listRecoveredRenewals } from './recovery.ts';
import {
  customerSubscriptionListQuery,
  customerSubscriptionSortFields,
  customerSubscriptionUpdateInput,
  type DunningActionName,
  failedRenewalSortFields,
  failedRenewalStatusFilter,
  failedRenewalWire,
  recoveredByFilter,
  subscriptionSortFields,
  subscriptionStatusFilter,
  subscriptionUpdateInput,
  type subscriptionWorkflowStateWireSchema,
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
const dunningActions: Record<DunningActionName, DunningAction> = {
  retry: 'retry_now',
  cancel: 'cancel',
  resolve: 'mark_resolved',
};

/** The query of the subscription list (documented by subscriptions:list). */
export const subscriptionListParameters = listParameters({
  page: pageParameters,
  sorting: sortingParameter(subscriptionSortFields, '-started_at'),
  productIds: idsParameter('product_id'),
  customerIds: idsParameter('customer_id'),
  externalCustomerIds: valuesParameter('external_customer_id', externalIdFilter),
  discountIds: idsParameter('discount_id'),
  active: booleanParameter('active'),
  statuses: valuesParameter('status', subscriptionStatusFilter),
  metadata: metadataParameter,
  organizationIds: idsParameter('organization_id'),
});

/** The query of the failed renewal list (documented by subscriptions:list_failed_renewals). */
export const failedRenewalListParameters = listParameters({
  page: pageParameters,
  sorting: sortingParameter(failedRenewalSortFields, 'past_due_at'),
  statuses: valuesParameter('status', failedRenewalStatusFilter),
});

/** The query of the recovered renewal list (documented by subscriptions:list_recovered_renewals). */
export const recoveredRenewalListParameters = listParameters({
  page: pageParameters,
  recoverers: valuesParameter('recovered_by', recoveredByFilter),
});

/**
 * /v1/subscriptions: what customers subscribe to, and their changes. Every change of a live
 * subscription is an update of its workflow (`subscription:<id>`, started if it is not running),
 * which applies it between renewals; a refusal comes back as the API's error.
 */
export function subscriptionRoutes({ orm, config, temporal }: AppDependencies): Router {
  const router = new Router({ prefix: '/v1/subscriptions' });
  const { publicUrl } = config.api;

  /** A change of the caller's subscription `id`, through its workflow. */
  async function changeOwnSubscription(
    organizationId: string,
    id: string,
    change: SubscriptionChange,
  ) {
    const subscription = await getSubscription(orm.em.fork(), organizationId, id);
    return changeSubscription(temporal, subscription, change);
  }

  router.get(
    '/',
    scope('subscriptions:read'),
    listRoute({
      query: subscriptionListParameters,
      list: (caller, query) => listSubscriptions(orm.em, caller.organizationId, query),
      serialize: (subscriptions) => serializeSubscriptions(orm.em, subscriptions, publicUrl),
    }),
  );

  // Polar's CSV file, which the SDK cannot read (it parses the body as JSON); registered before
  // `/:id`, which would take `export` for an id.
  router.get('/export', scope('subscriptions:read'), async (ctx) => {
    const caller = callerOf(ctx);
    const rows = organizationFilterMatches(ctx, caller)
      ? subscriptionExportRows(orm.em.fork(), caller.organizationId)
      : [];
    answerCsv(ctx, 'subscriptions.csv', subscriptionExportHeader, rows);
  });

  /**
   * Finance's list (Tollgate's own): past-due and unpaid subscriptions with their dunning and
   * the amount at risk, and `totals` per currency over all of them (not only this page).
   */
  router.get(
    '/failed-renewals',
    scope('subscriptions:read'),
    readsList(failedRenewalListParameters, async (ctx, { page, sorting, statuses }) => {
      const { organizationId } = callerOf(ctx);
      const [[subscriptions, total], totals] = await Promise.all([
        listFailedRenewals(orm.em.fork(), organizationId, { statuses, sorting, page }),
        failedRenewalTotals(orm.em.fork(), organizationId, statuses),
      ]);
      const amounts = await amountsAtRisk(orm.em.fork(), subscriptions);
      const items = subscriptions.map((subscription) =>
        failedRenewalWire(subscription, amounts.get(subscription.id) ?? null),
      );
      ctx.body = { ...listResource(items, total, page), totals };
    }),
  );

  /**
   * The failed renewals paid after all (Tollgate's own, beside failed-renewals): the latest
   * recovery first, each with who recovered it (`recovered_by`: customer, finance or dunning).
   */
  router.get(
    '/recovered-renewals',
    scope('subscriptions:read'),
    readsList(recoveredRenewalListParameters, async (ctx, { page, recoverers }) => {
      const [subscriptions, total] = await listRecoveredRenewals(
        orm.em.fork(),
        callerOf(ctx).organizationId,
        { page, recoverers },
      );
      const items = subscriptions.map((subscription) => failedRenewalWire(subscription, null));
      ctx.body = listResource(items, total, page);
    }),
  );

  /**
   * Finance mails the customer of a failed renewal the link that signs them into the portal on
   * the subscription to update their card and pay (Tollgate's own); each call sends one mail.
   */
  router.post('/:id/update-card-link', scope('subscriptions:write'), async (ctx) => {
    const id = readIdParam(ctx);
    const subscription = await getSubscription(orm.em.fork(), callerOf(ctx).organizationId, id);
    if (subscription.status !== 'past_due' && subscription.status !== 'unpaid') {
      throw commerceError('NotPastDueSubscription');
    }
    const { to, ...notice } = await failedRenewalNotice(orm.em.fork(), subscription.id, publicUrl);
    const mailId = `subscription:${subscription.id}:update-card:${randomUUID()}`;
    await sendEmail(temporal, { id: mailId, to, ...subscriptionUpdateCard(notice) });
    ctx.status = 202;
    ctx.body = { sent_to: to };
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
    ctx.body = await changeOwnSubscription(callerOf(ctx).organizationId, id, change);
  });

  router.delete('/:id', scope('subscriptions:write'), async (ctx) => {
    const id = readIdParam(ctx);
    const change = { kind: 'revoke', reason: null, comment: null } as const;
    ctx.body = await changeOwnSubscription(callerOf(ctx).organizationId, id, change);
  });

  // Finance's actions on a failed renewal (Tollgate's own, for the dashboard).
  router.post('/:id/dunning/:action', scope('subscriptions:write'), async (ctx) => {
    const id = readIdParam(ctx);
    const subscription = await getSubscription(orm.em.fork(), callerOf(ctx).organizationId, id);
    // Own keys only: `toString` or `constructor` must answer 404 like any unknown action.
    if (!Object.hasOwn(dunningActions, ctx.params.action ?? '')) throw resourceNotFound();
    const action = dunningActions[ctx.params.action as DunningActionName];
    if (subscription.status !== 'past_due' && subscription.status !== 'unpaid') {
      throw commerceError('NotPastDueSubscription');
    }
    ctx.body = await updateSubscriptionWorkflow(
      temporal,
      subscription.id,
      dunningActionUpdate,
      action,
    );
  });

  /** What the subscription's workflow is doing: its schedule, next action and last periods. */
  router.get('/:id/workflow', scope('subscriptions:read'), async (ctx) => {
    const id = readIdParam(ctx);
    const subscription = await getSubscription(orm.em, callerOf(ctx).organizationId, id);
    try {
      // Typed by its documented schema, so the two cannot drift apart.
      const state: z.input<typeof subscriptionWorkflowStateWireSchema> = await temporal.workflow
        .getHandle(workflowIds.subscription(subscription.id))
        .query(subscriptionStateQuery);
      ctx.body = state;
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) throw resourceNotFound('Workflow not found');
      throw error;
    }
  });

  return router;
}

/** The query of the portal's subscription list (documented by customer_portal:subscriptions:list). */
export const customerSubscriptionListParameters = listParameters({
  page: pageParameters,
  sorting: sortingParameter(customerSubscriptionSortFields, '-started_at'),
  query: fieldParameter(customerSubscriptionListQuery, 'query'),
  organizationIds: idsParameter('organization_id'),
  productIds: idsParameter('product_id'),
  active: booleanParameter('active'),
});

/**
 * /v1/customer-portal/subscriptions: the session customer's own subscriptions, as they see
 * them — list, get, cancel at period end (with their reason) or take it back, change plan.
 * Every change is an update of the subscription's workflow, as the seller's are; another
 * customer's subscription is not found, exactly as an unknown one.
 */
export function customerPortalSubscriptionRoutes(dependencies: AppDependencies): Router {
  const { orm, config, temporal } = dependencies;
  const router = new Router({ prefix: '/v1/customer-portal/subscriptions' });
  const { session, limit, list } = portalGate(dependencies);
  const { publicUrl } = config.api;

  /** A change the customer asks of their own subscription, answered as they see it. */
  async function changeOwn(customer: Customer, id: string, change: SubscriptionChange) {
    const em = orm.em.fork();
    const subscription = await getCustomerSubscription(em, customer, id);
    await assertCustomerMayChange(em, subscription, change);
    const [answer] = await toCustomerSubscriptions(em, [
      await changeSubscription(temporal, subscription, change),
    ]);
    return answer;
  }

  router.get(
    '/',
    ...list({
      query: customerSubscriptionListParameters,
      list: (customer, query) => listCustomerSubscriptions(orm.em, customer, query),
      serialize: (subscriptions) =>
        serializeCustomerSubscriptions(orm.em, subscriptions, publicUrl),
    }),
  );

  router.get('/:id', limit('portalRead'), session, async (ctx) => {
    const id = readIdParam(ctx);
    const subscription = await getCustomerSubscription(orm.em, sessionCustomerOf(ctx), id);
    const [wire] = await serializeCustomerSubscriptions(orm.em, [subscription], publicUrl);
    ctx.body = wire;
  });

  router.patch('/:id', limit('portalWrite'), session, async (ctx) => {
    const id = readIdParam(ctx);
    const change = parseBody(ctx, customerSubscriptionUpdateInput);
    ctx.body = await changeOwn(sessionCustomerOf(ctx), id, change);
  });

  // Polar's cancel: at the period's end, never at once.
  router.delete('/:id', limit('portalWrite'), session, async (ctx) => {
    const id = readIdParam(ctx);
    ctx.body = await changeOwn(sessionCustomerOf(ctx), id, {
      kind: 'cancel_at_period_end',
      cancelAtPeriodEnd: true,
      reason: null,
      comment: null,
    });
  });

  return router;
}
