import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Router from '@koa/router';
import type { RuntimeConfig } from '../config/env.ts';

/**
 * The hosted checkout page (dashboard/checkout.html, its own Vite entry) at
 * `/checkout/<client_secret>` and `…/confirmation`, where checkouts' `url` and default
 * `success_url` point, and the customer portal at `/portal` (customer sessions' portal URL). The page learns its settings from a JSON block put in its head here:
 * whether cards go through Stripe Elements (a publishable key is configured) or test cards.
 */
export function checkoutPageRoutes(config: RuntimeConfig, distDir: string): Router {
  const router = new Router();
  const built = join(distDir, 'checkout.html');
  if (!existsSync(built)) return router;
  const settings = { stripePublishableKey: config.stripe.publishableKey ?? null };
  // `<` escaped: nothing in the settings can close the script element.
  const settingsJson = JSON.stringify(settings).replace(/</g, '\\u003c');
  const page = readFileSync(built, 'utf8').replace(
    '<!-- tollgate-checkout-config -->',
    `<script id="tollgate-checkout-config" type="application/json">${settingsJson}</script>`,
  );
  const paths = [
    '/checkout/:clientSecret',
    '/checkout/:clientSecret/confirmation',
    // The portal of a session link, an organization's portal (sign-in by email) and where its
    // sign-in links land (`/portal/sign-in`).
    '/portal',
    '/portal/:organizationSlug',
  ];
  router.get(paths, (ctx) => {
    ctx.type = 'html';
    // A client secret or session token is in the address: never cached, never a referrer.
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.body = page;
  });
  return router;
}
