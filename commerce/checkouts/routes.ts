import Router from '@koa/router';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { Context } from 'koa';
import { z } from 'zod';
import type { AppDependencies } from '../../api/dependencies.ts';
import { parseBody } from '../../api/validation.ts';
import { AppError } from '../../core/errors.ts';
import { checkoutStatuses } from '../../db/entities/checkout.ts';
import { refusalFromWorkflowFailure } from '../../processes/activity-errors.ts';
import { confirmCheckoutUpdate } from '../../processes/checkout.ts';
import { authenticationEndedSignal } from '../../processes/payment-outcome.ts';
import { startCheckout } from '../../processes/starters.ts';
import { workflowIds } from '../../processes/workflow-ids.ts';
import { callerOf, scope } from '../http/caller.ts';
import {
  fieldParameter,
  idsParameter,
  listParameters,
  listRoute,
  mapParameter,
  pageParameters,
  queryValues,
  sortingParameter,
  valuesParameter,
} from '../http/listing.ts';
import { publicRateLimit } from '../http/rate-limits.ts';
import { parseCreateBody, readIdParam } from '../http/request.ts';
import { buyerSessionToken } from './buyer.ts';
import { assertPaymentReady, confirmableCheckout } from './confirm.ts';
import { type CheckoutSettings, createCheckout, createCheckoutFromLink } from './create.ts';
import { unavailableLinkPath } from './hosted-page.ts';
import { awaitedAuthentication } from './outcomes.ts';
import { getCheckout, getCheckoutByClientSecret, listCheckouts } from './reads.ts';
import {
  type CheckoutConfirmation,
  checkoutConfirmInput,
  checkoutCreateInput,
  checkoutSortFields,
  checkoutUpdateInput,
  checkoutUpdatePublicInput,
} from './schemas.ts';
import { updateCheckout, updateCheckoutPublic } from './updates.ts';
import { serializeCheckout, serializeCheckoutPublic, serializeCheckouts } from './views.ts';

const listQuery = z.object({ query: z.string().trim().optional() }).loose();
const statusFilter = z.enum(checkoutStatuses);
const clientSecretOf = (ctx: Context) => String(ctx.params.client_secret);

/** One optional text of the redirect's query (a repeated key takes its first value). */
const queryText = (ctx: Context, name: string) => queryValues(ctx, name)[0] || undefined;

/** The query of the checkout list (documented by checkouts:list). */
export const checkoutListParameters = listParameters({
  query: mapParameter(fieldParameter(listQuery, 'query'), (text) => text || undefined),
  productIds: idsParameter('product_id'),
  customerIds: idsParameter('customer_id'),
  statuses: valuesParameter('status', statusFilter),
  sorting: sortingParameter(checkoutSortFields, '-created_at'),
  page: pageParameters,
  organizationIds: idsParameter('organization_id'),
});

/**
 * /v1/checkouts: the seller creates, reads and changes checkouts with its token; the buyer's
 * page reads, changes and confirms one by its client secret, with no credentials (a token the
 * SDK attaches anyway is ignored). Also the redirect of checkout links, which opens a checkout.
 */
export function checkoutRoutes(dependencies: AppDependencies): Router {
  const { orm, config, temporal, stripe } = dependencies;
  const router = new Router();
  const limit = publicRateLimit(dependencies);
  const { publicUrl } = config.api;
  const settings: CheckoutSettings = {
    publicUrl,
    stripe,
    ttlSeconds: config.checkouts.ttlSeconds,
    startWorkflow: ({ id, expiresAt }) =>
      startCheckout(temporal, {
        checkoutId: id,
        expiresAt: expiresAt.toISOString(),
        authenticationTimeoutSeconds: config.checkouts.authenticationTimeoutSeconds,
        incompleteSubscriptionSeconds: config.checkouts.incompleteSubscriptionSeconds,
      }),
  };
  router.get(
    ['/v1/checkouts/', '/v1/checkouts'],
    scope('checkouts:read'),
    listRoute({
      query: checkoutListParameters,
      list: (caller, query) => listCheckouts(orm.em, caller.organizationId, query),
      serialize: (checkouts) => serializeCheckouts(orm.em, checkouts, publicUrl),
    }),
  );

  router.post(['/v1/checkouts/', '/v1/checkouts'], scope('checkouts:write'), async (ctx) => {
    const caller = callerOf(ctx);
    const input = parseCreateBody(ctx, checkoutCreateInput, caller);
    ctx.body = await createCheckout(orm.em, caller.organizationId, input, settings);
    ctx.status = 201;
  });

  router.get('/v1/checkouts/:id', scope('checkouts:read'), async (ctx) => {
    const id = readIdParam(ctx);
    const checkout = await getCheckout(orm.em, callerOf(ctx).organizationId, id);
    ctx.body = await serializeCheckout(orm.em, checkout, publicUrl);
  });

  router.patch('/v1/checkouts/:id', scope('checkouts:write'), async (ctx) => {
    const id = readIdParam(ctx);
    const input = parseBody(ctx, checkoutUpdateInput);
    const { organizationId } = callerOf(ctx);
    ctx.body = await updateCheckout(orm.em, organizationId, id, input, publicUrl, stripe);
  });

  router.get('/v1/checkouts/client/:client_secret', limit('checkoutRead'), async (ctx) => {
    const checkout = await getCheckoutByClientSecret(orm.em, clientSecretOf(ctx));
    ctx.body = await serializeCheckoutPublic(orm.em, checkout, publicUrl);
  });

  router.patch('/v1/checkouts/client/:client_secret', limit('checkoutUpdate'), async (ctx) => {
    const input = parseBody(ctx, checkoutUpdatePublicInput);
    ctx.body = await updateCheckoutPublic(orm.em, clientSecretOf(ctx), input, publicUrl, stripe);
  });

  /**
   * Confirm runs in the checkout's workflow (a Temporal update whose handler applies it through
   * an activity), so it is serialized with expiry and payment, and a refusal comes back here as
   * the API error. The answer says `confirmed` whatever happened since (a free checkout may
   * already have succeeded) and carries the buyer's portal session, when the buyer is known to be
   * the checkout's customer (see buyerSessionToken).
   */
  router.post(
    '/v1/checkouts/client/:client_secret/confirm',
    limit('checkoutConfirm'),
    async (ctx) => {
      parseBody(ctx, checkoutConfirmInput);
      const em = orm.em.fork();
      const checkout = await confirmableCheckout(em, clientSecretOf(ctx));
      if (config.checkouts.sellerDetailsRequired) await assertPaymentReady(em, checkout, publicUrl);
      // The body as received (validated above) crosses the workflow, as recorded histories hold it.
      const body = (ctx.request.body ?? {}) as CheckoutConfirmation;
      try {
        await temporal.workflow
          .getHandle(workflowIds.checkout(checkout.id))
          .executeUpdate(confirmCheckoutUpdate, { args: [body] });
      } catch (error) {
        throw refusalFromWorkflowFailure(error) ?? error;
      }
      await em.refresh(checkout);
      const token = await buyerSessionToken(em, checkout);
      const wire = await serializeCheckoutPublic(em, checkout, publicUrl);
      ctx.body = { ...wire, status: 'confirmed' as const, customer_session_token: token };
    },
  );

  /**
   * The buyer's page says the 3-D Secure step it ran ended (Stripe.js finished, or the buyer is
   * back from the challenge): the checkout's workflow asks Stripe at once instead of waiting for
   * the webhook. Answers the checkout as it is; one that waits for no step is left alone.
   */
  router.post(
    '/v1/checkouts/client/:client_secret/authentication',
    limit('checkoutUpdate'),
    async (ctx) => {
      const em = orm.em.fork();
      const checkout = await getCheckoutByClientSecret(em, clientSecretOf(ctx));
      if (awaitedAuthentication(checkout)) {
        const handle = temporal.workflow.getHandle(workflowIds.checkout(checkout.id));
        // A workflow that has ended has settled the payment already.
        await handle.signal(authenticationEndedSignal).catch((error: unknown) => {
          if (!(error instanceof WorkflowNotFoundError)) throw error;
        });
      }
      ctx.body = await serializeCheckoutPublic(em, checkout, publicUrl);
    },
  );

  router.get(
    '/v1/checkout-links/:client_secret/redirect',
    limit('checkoutLinkRedirect'),
    async (ctx) => {
      const linkSecret = clientSecretOf(ctx);
      let checkout: Awaited<ReturnType<typeof createCheckoutFromLink>>;
      try {
        checkout = await createCheckoutFromLink(
          orm.em,
          linkSecret,
          {
            customer_email: queryText(ctx, 'customer_email'),
            customer_name: queryText(ctx, 'customer_name'),
            discount_code: queryText(ctx, 'discount_code'),
            embed_origin: queryText(ctx, 'embed_origin'),
          },
          settings,
        );
      } catch (error) {
        // A buyer's browser following a bad or deleted link gets the hosted page saying so in
        // the seller's name; API clients (asking for JSON) keep the 404.
        const browser = ctx.accepts('json', 'html') === 'html';
        if (browser && error instanceof AppError && error.refusal === 'not_found') {
          ctx.redirect(`${publicUrl.replace(/\/$/, '')}${unavailableLinkPath(linkSecret)}`);
          return;
        }
        throw error;
      }
      ctx.redirect(checkout.url);
    },
  );

  return router;
}
