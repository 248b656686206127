import Router from '@koa/router';
import { z } from 'zod';
import { restorableSubscription } from '../../accounts/customer-subscriptions.ts';
import { authError } from '../../accounts/errors.ts';
import type { AuthSettings } from '../../accounts/settings.ts';
import { changeSubscription } from '../../commerce/http/subscription-changes.ts';
import { toCustomerSubscriptions } from '../../commerce/subscriptions/portal.ts';
import { AppError } from '../../core/errors.ts';
import type { AppDependencies } from '../dependencies.ts';
import { parseBody } from '../validation.ts';
import { requireSignedIn } from './session-context.ts';

/** Better Auth's Stripe plugin `restoreSubscription` body: both optional, as its client sends them. */
export const restoreBody = z.object({
  subscriptionId: z
    .string()
    .optional()
    .meta({ description: 'Which subscription; optional when the user has only one to restore.' }),
  referenceId: z
    .string()
    .optional()
    .meta({ description: "Whose subscription: only the signed-in user's own id is accepted." }),
});

/**
 * Better Auth's Stripe plugin routes a signed-in user calls about their own subscriptions, the
 * user being the customer with their verified email address (accounts/customer-subscriptions.ts).
 */
export function subscriptionRoutes({ orm, temporal }: AppDependencies, settings: AuthSettings) {
  const router = new Router();

  // Takes back a cancel at period end through the subscription's workflow, as an uncancel from
  // /v1 or the portal does, and answers the subscription as its customer sees it.
  router.post('/subscription/restore', async (ctx) => {
    const body = parseBody(ctx, restoreBody);
    const { user } = await requireSignedIn(ctx, orm, settings);
    // Better Auth's referenceId names whose subscription it is: here only the user's own.
    if (body.referenceId !== undefined && body.referenceId !== user.id) {
      throw authError('not_found', 'SUBSCRIPTION_NOT_FOUND');
    }
    const em = orm.em.fork();
    const subscription = await restorableSubscription(em, user, body.subscriptionId);
    try {
      const restored = await changeSubscription(temporal, subscription, {
        kind: 'cancel_at_period_end',
        cancelAtPeriodEnd: false,
        reason: null,
        comment: null,
      });
      const [answer] = await toCustomerSubscriptions(em, [restored]);
      ctx.body = answer;
    } catch (error) {
      // Its period ran out since it was read: it has ended.
      if (error instanceof AppError && error.code === 'AlreadyCanceledSubscription') {
        throw authError('invalid', 'SUBSCRIPTION_NOT_ACTIVE');
      }
      throw error;
    }
  });

  return router;
}
