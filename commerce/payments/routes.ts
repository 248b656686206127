import Router from '@koa/router';
import Stripe from 'stripe';
import type { AppDependencies } from '../../api/dependencies.ts';
import { applyStripeEvent } from '../../processes/stripe-events.ts';
import { commerceError } from '../errors.ts';
import { callerOf, scope } from '../http/caller.ts';
import {
  idsParameter,
  listParameters,
  listRoute,
  pageParameters,
  sortingParameter,
  textsParameter,
  valuesParameter,
} from '../http/listing.ts';
import { readIdParam } from '../http/request.ts';
import { paymentSortFields, paymentStatusFilter, paymentWire } from './schemas.ts';
import { getPayment, listPayments } from './service.ts';

/** How old a signed Stripe event may be (Stripe's default tolerance): older is a replay. */
const signatureToleranceSeconds = 300;

/** The query of the payment list (documented by payments:list). */
export const paymentListParameters = listParameters({
  checkoutIds: idsParameter('checkout_id'),
  orderIds: idsParameter('order_id'),
  statuses: valuesParameter('status', paymentStatusFilter),
  methods: textsParameter('method'),
  customerEmails: textsParameter('customer_email'),
  sorting: sortingParameter(paymentSortFields, '-created_at'),
  page: pageParameters,
  organizationIds: idsParameter('organization_id'),
});

/** /v1/payments: every attempt to take money, read-only (§4.11). */
export function paymentRoutes({ orm }: AppDependencies): Router {
  const router = new Router({ prefix: '/v1/payments' });

  router.get(
    '/',
    scope('payments:read'),
    listRoute({
      query: paymentListParameters,
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
