import { z } from 'zod';
import type { Customer } from '../../db/entities/index.ts';
import { customerWire } from '../customers/schemas.ts';
import { isoDateTime } from '../wire.ts';

/** Polar's `CustomerSessionCustomerIDCreate | CustomerSessionCustomerExternalIDCreate`. */
export const customerSessionCreateInput = z.union([
  z.object({ customer_id: z.uuid() }),
  z.object({ external_customer_id: z.string().min(1) }),
]);
export type CustomerSessionCreateInput = z.infer<typeof customerSessionCreateInput>;

/** The page a session token opens: the hosted customer portal. */
export const customerPortalUrl = (publicUrl: string, token: string) =>
  `${publicUrl}/portal?customer_session_token=${encodeURIComponent(token)}`;

/** A new session as /v1 answers it (Polar's `CustomerSession`), the only time the token is shown. */
export function customerSessionWire(
  created: { token: string; expiresAt: Date; session: { id: string; createdAt: Date } },
  customer: Customer,
  publicUrl: string,
) {
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
