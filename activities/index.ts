import type { Client } from '@temporalio/client';
import type { StripeClient } from '../config/stripe.ts';
import type { Orm } from '../db/orm.ts';
import { createInvitationActivities } from './invitations.ts';
import { createMailActivities } from './mail/index.ts';
import type { Mailer } from './mail/transport.ts';
import { createMaintenanceActivities } from './maintenance.ts';

export interface ActivityDependencies {
  orm: Orm;
  mailer: Mailer;
  stripe: StripeClient;
  /** For activities that start or signal other workflows (signal-with-start is client-only). */
  temporal: Client;
}

/** Every activity the worker registers, bound to the resources they share. */
export function createActivities({ orm, mailer }: ActivityDependencies) {
  return {
    ...createMaintenanceActivities(orm),
    ...createMailActivities(mailer),
    ...createInvitationActivities(orm),
  };
}
