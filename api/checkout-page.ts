import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Router from '@koa/router';
import type { Middleware } from 'koa';
import {
  checkoutLinkNotice,
  checkoutNotice,
  type HostedCheckoutNotice,
} from '../commerce/checkouts/hosted-page.ts';
import { publicRateLimit } from '../commerce/http/rate-limits.ts';
import type { RuntimeConfig } from '../config/env.ts';
import type { AppDependencies } from './dependencies.ts';

/** What the page is told of the checkout (or link) in its address, read when it is served. */
export interface CheckoutNotices {
  checkout: (clientSecret: string) => Promise<HostedCheckoutNotice>;
  link: (linkSecret: string) => Promise<HostedCheckoutNotice>;
  /** The per-IP limit of these reads. */
  limit: Middleware;
}

export function checkoutNotices(dependencies: AppDependencies): CheckoutNotices {
  const { orm, config } = dependencies;
  return {
    checkout: (clientSecret) => checkoutNotice(orm.em.fork(), clientSecret, config.api.publicUrl),
    link: (linkSecret) => checkoutLinkNotice(orm.em.fork(), linkSecret),
    limit: publicRateLimit(dependencies)('checkoutPage'),
  };
}

const statusOf: Record<NonNullable<HostedCheckoutNotice['unavailable']>, number> = {
  expired: 410,
  not_found: 404,
  link_not_found: 404,
};

/**
 * The hosted checkout page (dashboard/checkout.html, its own Vite entry) at
 * `/checkout/<client_secret>` and `…/confirmation`, where checkouts' `url` and default
 * `success_url` point, the page a checkout link that opens nothing leads to
 * (`/checkout-link/<secret>`), and the customer portal at `/portal` (customer sessions' portal
 * URL). The page learns its settings from a JSON block put in its head here: whether cards go
 * through Stripe Elements (a publishable key is configured) or test cards and, with `notices`,
 * whose checkout it is, where a new one starts and why it cannot be used: an expired or unknown
 * checkout, a bad or deleted link answer that page in the seller's name (410 or 404), never JSON.
 */
export function checkoutPageRoutes(
  config: RuntimeConfig,
  distDir: string,
  notices?: CheckoutNotices,
): Router {
  const router = new Router();
  const built = join(distDir, 'checkout.html');
  if (!existsSync(built)) return router;
  const template = readFileSync(built, 'utf8');
  const pageWith = (notice: HostedCheckoutNotice | null) => {
    const settings = {
      stripePublishableKey: config.stripe.publishableKey ?? null,
      ...(notice && { notice }),
    };
    // `<` escaped: nothing in the settings (a seller's name) can close the script element.
    const settingsJson = JSON.stringify(settings).replace(/</g, '\\u003c');
    return template.replace(
      '<!-- tollgate-checkout-config -->',
      `<script id="tollgate-checkout-config" type="application/json">${settingsJson}</script>`,
    );
  };
  const plainPage = pageWith(null);

  const serve = (ctx: Parameters<Middleware>[0], notice: HostedCheckoutNotice | null) => {
    ctx.type = 'html';
    // A client secret or session token is in the address: never cached, never a referrer.
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.body = notice ? pageWith(notice) : plainPage;
    if (notice?.unavailable) ctx.status = statusOf[notice.unavailable];
  };

  const checkoutPaths = ['/checkout/:clientSecret', '/checkout/:clientSecret/confirmation'];
  if (notices) {
    router.get(checkoutPaths, notices.limit, async (ctx) => {
      serve(ctx, await notices.checkout(String(ctx.params.clientSecret)));
    });
    router.get('/checkout-link/:linkSecret', notices.limit, async (ctx) => {
      serve(ctx, await notices.link(String(ctx.params.linkSecret)));
    });
  } else {
    router.get(checkoutPaths, (ctx) => serve(ctx, null));
  }
  // The portal of a session link, an organization's portal (sign-in by email), where its
  // sign-in links land (`/portal/sign-in`), and a subscription or order a mail is about
  // (`/portal/subscriptions/<id>`): dashboard/src/portal/paths.ts reads them.
  router.get(['/portal', '/portal/:organizationSlug', '/portal/:section/:id'], (ctx) =>
    serve(ctx, null),
  );
  return router;
}
