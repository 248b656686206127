import type { Client } from '@temporalio/client';
import { fileStorage } from '../commerce/files/service.ts';
import type { Config } from '../config/env.ts';
import type { Orm } from '../db/orm.ts';
import type { Mailer } from '../integrations/mail/transport.ts';
import type { StripeClient } from '../integrations/stripe/client.ts';
import { createBenefitGrantActivities } from './benefit-grants.ts';
import { createCheckoutActivities } from './checkouts.ts';
import { createCustomerMailActivities } from './customer-mails.ts';
import { createInvitationActivities } from './invitations.ts';
import { createMailActivities } from './mail/index.ts';
import { createMaintenanceActivities } from './maintenance.ts';
import { createPaymentActivities } from './payments.ts';
import { createRefundActivities } from './refunds.ts';
import { createSubscriptionChangeActivities } from './subscription-changes.ts';
import { createSubscriptionActivities } from './subscriptions.ts';
import { createTestClockActivities } from './test-clocks.ts';
import { createUpkeepActivities } from './upkeep.ts';
import { createWebhookActivities } from './webhooks.ts';

export interface ActivityDependencies {
  config: Config;
  orm: Orm;
  mailer: Mailer;
  stripe: StripeClient;
  /** For activities that start or signal other workflows (signal-with-start is client-only). */
  temporal: Client;
}

/** Every activity the worker registers, bound to the resources they share. */
export function createActivities({ config, orm, mailer, stripe, temporal }: ActivityDependencies) {
  return {
    ...createMaintenanceActivities(orm, fileStorage(config.files)),
    ...createMailActivities(mailer),
    ...createInvitationActivities(orm),
    ...createPaymentActivities({ orm, stripe }),
    ...createRefundActivities({ orm, stripe }),
    ...createCheckoutActivities({ orm, temporal, stripe }, config.api.publicUrl),
    ...createBenefitGrantActivities({ orm, temporal }, config.benefitIntegrations),
    ...createWebhookActivities(orm),
    ...createTestClockActivities({ orm, temporal }),
    ...createSubscriptionChangeActivities({ orm, stripe, publicUrl: config.api.publicUrl }),
    ...createSubscriptionActivities({ orm, stripe, publicUrl: config.api.publicUrl }),
    ...createCustomerMailActivities({ orm, temporal, stripe }, config.api.publicUrl),
    ...createUpkeepActivities({ orm, stripe }),
  };
}
