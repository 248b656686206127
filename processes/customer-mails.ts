/**
 * The contracts of the customer mail workflows: the sign-in link a customer asks for
 * (workflows/customer-sign-in.ts) and the periodic reminders (workflows/customer-reminders.ts).
 */

/** A customer asked for a sign-in link at `email` (`customer-sign-in:<requestId>`). */
export interface CustomerSignInInput {
  /** One per request; the link row's id, so a retried step re-issues the same link. */
  requestId: string;
  organizationId: string;
  email: string;
  /** The portal path the link opens on (checked by the API), or null for the portal's home. */
  returnTo: string | null;
}
