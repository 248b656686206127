import Router from '@koa/router';
import Stripe from 'stripe';
import type { AppDependencies } from '../../api/dependencies.ts';
import { applyStripeEvent } from '../../processes/stripe-events.ts';
import { commerceError } from '../errors.ts';
import { callerOf, scope } from '../http/caller.ts';
import {
  listRoute,
  queryValues,
  readPage,
  readQueryIds,
  readQueryList,
  readSorting,
} from '../http/listing.ts';
import { readIdParam } from '../http/request.ts';
import { paymentSortFields, paymentStatusFilter, paymentWire } from './schemas.ts';
import { getPayment, listPayments } from './service.ts';

/** How old a signed Stripe event may be (Stripe's default tolerance): older is a replay. */
const signatureToleranceSeconds = 300;

/** /v1/payments: every attempt to take money, read-only (§4.11). */
export function paymentRoutes({ orm }: AppDependencies): Router {
  const router = new Router({ prefix: '/v1/payments' });

  router.get(
    '/',
    scope('payments:read'),
    listRoute({
      read: (ctx) => ({
        checkoutIds: readQueryIds(ctx, 'checkout_id'),
        orderIds: readQueryIds(ctx, 'order_id'),
        statuses: readQueryList(ctx, 'status', paymentStatusFilter),
        methods: queryValues(ctx, 'method'),
        customerEmails: queryValues(ctx, 'customer_email'),
        sorting: readSorting(ctx, paymentSortFields, '-created_at'),
        page: readPage(ctx),
      }),
      list: (caller, query) => listPayments(orm.em, caller.organizationId, query),
      serialize: (payments) => payments.map(paymentWire),
    }),
  );

  router.get('/:id', scope('payments:read'), async (ctx) => {
    const id = readIdParam(ctx);
    ctx.body = paymentWire(await getPayment(orm.em, callerOf(ctx).organizationId, id));
  });

  return router;
}

/**
 * Stripe's webhook endpoint: the raw body's `Stripe-Signature` is checked against
 * STRIPE_WEBHOOK_SECRET (bad, missing or older than 300 s: 400, nothing written), then the
 * event is applied once (see applyStripeEvent).
 */
export function stripeWebhookRoutes({ orm, temporal, stripe, config, logger }: AppDependencies) {
  const router = new Router();
  router.post('/v1/integrations/stripe/webhook', async (ctx) => {
    const secret = config.stripe.webhookSecret;
    if (!secret) {
      logger.error('a Stripe event arrived but STRIPE_WEBHOOK_SECRET is not set');
      throw commerceError('BadRequest', 'Stripe webhooks are not configured.');
    }
    const payload = ctx.request.rawBody;
    let event: Stripe.Event;
    try {
      event = stripe.webhooks.constructEvent(
        payload ?? '',
        ctx.get('stripe-signature'),
        secret,
        signatureToleranceSeconds,
      );
    } catch (error) {
      if (!(error instanceof Stripe.errors.StripeSignatureVerificationError)) throw error;
      throw commerceError('BadRequest', `Invalid Stripe signature: ${error.message}`);
    }
    const result = await applyStripeEvent({ orm, temporal, logger }, event);
    ctx.body = { received: true, result };
  });
  return router;
}
