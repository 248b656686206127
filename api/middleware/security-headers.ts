import { createHash } from 'node:crypto';
import type { Middleware } from 'koa';
import type { RuntimeConfig } from '../../config/env.ts';

/** What Stripe.js and its Elements load, per Stripe's integration security guide. */
const stripeSources = {
  script: ['https://js.stripe.com', 'https://*.js.stripe.com'],
  frame: ['https://js.stripe.com', 'https://*.js.stripe.com', 'https://hooks.stripe.com'],
  connect: ['https://api.stripe.com'],
};

/** The hosted checkout and the customer portal (api/checkout-page.ts): the pages taking cards. */
const isCheckoutPage = (path: string) =>
  path.startsWith('/checkout/') || path === '/portal' || path.startsWith('/portal/');

/**
 * The one inline style of the API reference page (/docs): Swagger UI draws its logo as an SVG
 * holding a <style> element. Allowed by its hash there, and nowhere else; the reference tests
 * check it is still the only inline style the bundle renders.
 */
export const swaggerUiLogoStyle =
  '.logo_small_svg__cls-2{fill:#fff}.logo_small_svg__cls-3{fill:#85ea2d}';

const styleHash = (style: string) =>
  `'sha256-${createHash('sha256').update(style).digest('base64')}'`;

/**
 * The Content-Security-Policy of every answer. The built dashboard and checkout need only their
 * own scripts and styles (Vite emits files, nothing inline; the checkout's settings are a JSON
 * data block, which no policy governs); they fetch from the API, which may be reached at the
 * public URL, and upload file parts to the storage's presigned URLs (S3, when configured).
 * Images may come from anywhere over HTTPS (avatars, product media). Nothing may frame them.
 */
function contentSecurityPolicy(
  config: RuntimeConfig,
  { stripe = false, inlineStyles = [] }: { stripe?: boolean; inlineStyles?: string[] } = {},
): string {
  const publicOrigin = new URL(config.api.publicUrl).origin;
  const storageOrigin = config.files.s3 && new URL(config.files.s3.endpoint).origin;
  const directives: [string, ...(string | false | undefined)[]][] = [
    ['default-src', "'self'"],
    ['script-src', "'self'", ...(stripe ? stripeSources.script : [])],
    ['style-src', "'self'", ...inlineStyles.map(styleHash)],
    ['img-src', "'self'", 'data:', 'blob:', 'https:', publicOrigin],
    [
      'connect-src',
      "'self'",
      publicOrigin,
      storageOrigin,
      ...(stripe ? stripeSources.connect : []),
    ],
    ['frame-src', ...(stripe ? stripeSources.frame : ["'none'"])],
    ['frame-ancestors', "'none'"],
    ['form-action', "'self'"],
    ['base-uri', "'none'"],
    ['object-src', "'none'"],
  ];
  return directives
    .map(([name, ...sources]) => [name, ...new Set(sources.filter(Boolean))].join(' '))
    .join('; ');
}

/**
 * Headers against clickjacking (a payment page in someone else's frame), MIME sniffing (an
 * uploaded file run as a script), referrer leaks and script injection, on every answer; and
 * HSTS in production when the public URL is HTTPS. The Referrer-Policy keeps the Origin header
 * on the dashboard's same-origin POSTs, which Better Auth's origin check reads.
 */
export function securityHeaders(config: RuntimeConfig): Middleware {
  const pagePolicy = contentSecurityPolicy(config);
  const checkoutPolicy = contentSecurityPolicy(config, {
    stripe: Boolean(config.stripe.publishableKey),
  });
  const referencePolicy = contentSecurityPolicy(config, { inlineStyles: [swaggerUiLogoStyle] });
  const https = new URL(config.api.publicUrl).protocol === 'https:';
  const strictTransport = config.env === 'production' && https;
  // The headers of each policy, built once rather than per request.
  const headersWith = (policy: string) => ({
    'Content-Security-Policy': policy,
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'strict-origin-when-cross-origin',
    ...(strictTransport && { 'Strict-Transport-Security': 'max-age=31536000' }),
  });
  const pageHeaders = headersWith(pagePolicy);
  const checkoutHeaders = headersWith(checkoutPolicy);
  const referenceHeaders = headersWith(referencePolicy);
  const headersOf = (path: string) =>
    isCheckoutPage(path) ? checkoutHeaders : path === '/docs' ? referenceHeaders : pageHeaders;
  return (ctx, next) => {
    ctx.set(headersOf(ctx.path));
    return next();
  };
}
