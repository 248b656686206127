import { Session, Verification } from '../db/entities/index.ts';
import type { Orm } from '../db/orm.ts';

/** Housekeeping of the account tables. Deleting by cut-off is idempotent: a retry deletes nothing more. */
export function createMaintenanceActivities(orm: Orm) {
  return {
    async deleteExpiredSessions(before: string): Promise<number> {
      return orm.em.fork().nativeDelete(Session, { expiresAt: { $lt: new Date(before) } });
    },

    async deleteExpiredVerifications(before: string): Promise<number> {
      return orm.em.fork().nativeDelete(Verification, { expiresAt: { $lt: new Date(before) } });
    },
  };
}

export type MaintenanceActivities = ReturnType<typeof createMaintenanceActivities>;
