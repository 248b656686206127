import type { Client } from '@temporalio/client';
import { sendCustomerReminders } from '../commerce/customer-notifications/service.ts';
import { portalSignInLinkUrl } from '../commerce/customer-sessions/schemas.ts';
import { signInLinkForEmail, signInLinkLifetimeMs } from '../commerce/customer-sessions/service.ts';
import { Organization } from '../db/entities/index.ts';
import type { Orm } from '../db/orm.ts';
import * as customerTemplates from '../integrations/mail/customer-templates.ts';
import type { StripeClient } from '../integrations/stripe/client.ts';
import type { CustomerSignInInput } from '../processes/customer-mails.ts';
import { sendCustomerEmail } from '../processes/starters.ts';
import type { EmailMessage } from './mail/index.ts';

/** The activities of the customer mail workflows. */
export function createCustomerMailActivities(
  { orm, temporal, stripe }: { orm: Orm; temporal: Client; stripe: StripeClient },
  publicUrl: string,
) {
  return {
    /**
     * The reminders due now (commerce/customer-notifications), each mail started as its own
     * sendEmail workflow; answers how many were sent.
     */
    sendCustomerReminders(): Promise<number> {
      return sendCustomerReminders(orm.em.fork(), {
        publicUrl,
        deliver: (message) => sendCustomerEmail(temporal, message),
        stripe,
      });
    },

    /**
     * The sign-in mail for the customer at the address asked for, with a fresh link; null when
     * no live customer of the organization has it. A retry re-issues the request's one link.
     */
    async customerSignInMail(input: CustomerSignInInput): Promise<EmailMessage | null> {
      const em = orm.em.fork();
      const found = await signInLinkForEmail(em, {
        organizationId: input.organizationId,
        email: input.email,
        returnTo: input.returnTo,
        linkId: input.requestId,
      });
      if (!found) return null;
      const organization = await em.findOneOrFail(Organization, input.organizationId);
      const content = customerTemplates.portalSignIn({
        organizationName: organization.name,
        url: portalSignInLinkUrl(publicUrl, found.token),
        expiresInMinutes: signInLinkLifetimeMs / 60_000,
      });
      return { id: `customer-sign-in:${input.requestId}`, to: found.customer.email, ...content };
    },
  };
}

export type CustomerMailActivities = ReturnType<typeof createCustomerMailActivities>;
