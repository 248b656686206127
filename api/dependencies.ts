import type { Client } from '@temporalio/client';
import type { RuntimeConfig } from '../config/env.ts';
import type { Logger } from '../config/logger.ts';
import type { ChangeListener } from '../db/change-notifications.ts';
import type { Orm } from '../db/orm.ts';
import type { StripeClient } from '../integrations/stripe/client.ts';

/** What the routes share; built once by the server (or a test) and passed to each router. */
export interface AppDependencies {
  config: RuntimeConfig;
  logger: Logger;
  orm: Orm;
  temporal: Client;
  stripe: StripeClient;
  /** Announced data changes, for caches; absent in apps built without one (nothing is cached). */
  changes?: ChangeListener;
}
