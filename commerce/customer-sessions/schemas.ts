import { z } from 'zod';
import type { Customer } from '../../db/entities/index.ts';
import { portalPath } from '../../domain/portal-paths.ts';
import { customerWire, customerWireSchema } from '../customers/schemas.ts';
import { dateTimeWireSchema, isoDateTime } from '../wire.ts';

/** Polar's `CustomerSessionCustomerIDCreate | CustomerSessionCustomerExternalIDCreate`. */
export const customerSessionCreateInput = z.union([
  z.object({ customer_id: z.uuid() }),
  z.object({ external_customer_id: z.string().min(1) }),
]);
export type CustomerSessionCreateInput = z.infer<typeof customerSessionCreateInput>;

/** The page a session token opens: the hosted customer portal. */
export const customerPortalUrl = (publicUrl: string, token: string) =>
  `${publicUrl}/portal?customer_session_token=${encodeURIComponent(token)}`;

/** Polar's `CustomerSession`. */
export const customerSessionWireSchema = z
  .object({
    id: z.uuid(),
    created_at: dateTimeWireSchema,
    modified_at: dateTimeWireSchema.nullable(),
    token: z.string(),
    expires_at: dateTimeWireSchema,
    customer_portal_url: z.string(),
    customer_id: z.uuid(),
    customer: customerWireSchema,
  })
  .meta({ id: 'CustomerSession' });

/** A new session as /v1 answers it (Polar's `CustomerSession`), the only time the token is shown. */
export function customerSessionWire(
  created: { token: string; expiresAt: Date; session: { id: string; createdAt: Date } },
  customer: Customer,
  publicUrl: string,
): z.input<typeof customerSessionWireSchema> {
  return {
    id: created.session.id,
    created_at: isoDateTime(created.session.createdAt),
    modified_at: null,
    token: created.token,
    expires_at: isoDateTime(created.expiresAt),
    customer_portal_url: customerPortalUrl(publicUrl, created.token),
    customer_id: customer.id,
    customer: customerWire(customer),
  };
}

/** The page a mailed sign-in link opens: the portal's landing step, which posts the token. */
export const portalSignInLinkUrl = (publicUrl: string, token: string) =>
  `${publicUrl}/portal/sign-in?token=${encodeURIComponent(token)}`;

// Typed by the customer: surrounding spaces are not part of the address.
const signInEmail = z.string().trim().max(255).pipe(z.email());
const signInReturnTo = z
  .string()
  .max(2000)
  .refine((path) => portalPath(path) !== null, 'Must be a path of the customer portal.')
  .nullish();

/**
 * `POST /v1/customer-portal/customer-session/request`: mail a sign-in link to the customer of an
 * organization (named by id or slug) with this address.
 */
export const signInRequestInput = z.union([
  z.strictObject({ organization_id: z.uuid(), email: signInEmail, return_to: signInReturnTo }),
  z.strictObject({
    organization_slug: z.string().min(1).max(255),
    email: signInEmail,
    return_to: signInReturnTo,
  }),
]);
export type SignInRequestInput = z.infer<typeof signInRequestInput>;

/** `POST /v1/customer-portal/customer-session/authenticate`: the token of the mailed link. */
export const signInAuthenticateInput = z.strictObject({ token: z.string().min(1).max(200) });

/** A session opened by a sign-in link (Tollgate's own): the portal keeps the token and goes to `return_to`. */
export const signInSessionWireSchema = z
  .object({
    token: z.string(),
    expires_at: dateTimeWireSchema,
    customer_id: z.uuid(),
    return_to: z.string(),
    customer_portal_url: z.string(),
  })
  .meta({ id: 'CustomerPortalSignInSession' });

/** A session opened by a sign-in link: the portal keeps the token and goes to `return_to`. */
export function signInSessionWire(
  opened: { token: string; expiresAt: Date; returnTo: string | null; customer: Customer },
  publicUrl: string,
): z.input<typeof signInSessionWireSchema> {
  return {
    token: opened.token,
    expires_at: isoDateTime(opened.expiresAt),
    customer_id: opened.customer.id,
    return_to: opened.returnTo ?? '/portal',
    customer_portal_url: customerPortalUrl(publicUrl, opened.token),
  };
}
