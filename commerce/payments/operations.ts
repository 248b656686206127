import { z } from 'zod';
import { idPath, type Operation, pageOf } from '../http/openapi.ts';
import { paymentListParameters } from './routes.ts';
import { paymentWireSchema } from './schemas.ts';

const read = ['payments:read'] as const;

/** The operations of paymentRoutes (/v1/payments). */
export const paymentOperations: Operation[] = [
  {
    method: 'get',
    path: '/v1/payments',
    operationId: 'payments:list',
    summary: 'List payments (every attempt to take money)',
    tag: 'Payments',
    scopes: read,
    query: paymentListParameters.schema,
    response: { status: 200, schema: pageOf(paymentWireSchema) },
  },
  {
    method: 'get',
    path: '/v1/payments/:id',
    operationId: 'payments:get',
    summary: 'Get a payment',
    tag: 'Payments',
    scopes: read,
    params: idPath,
    response: { status: 200, schema: paymentWireSchema },
    errors: [404],
  },
];

/** What applying a Stripe event came to. */
const stripeEventReceiptSchema = z.object({ received: z.literal(true), result: z.unknown() });

/** The operations of stripeWebhookRoutes: Stripe's events, signed, read as the raw body. */
export const stripeWebhookOperations: Operation[] = [
  {
    method: 'post',
    path: '/v1/integrations/stripe/webhook',
    operationId: 'integrations:stripe:webhook',
    summary:
      'Receive a Stripe event: the raw body, signed in the Stripe-Signature header with STRIPE_WEBHOOK_SECRET',
    tag: 'Integrations',
    auth: 'public',
    body: z.looseObject({ id: z.string(), type: z.string() }).meta({
      description:
        'A Stripe event, read as raw bytes: its Stripe-Signature (at most 300 s old) is checked on them.',
    }),
    response: { status: 200, schema: stripeEventReceiptSchema },
    errors: [400],
  },
];
