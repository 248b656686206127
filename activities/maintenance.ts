import { deleteAbandonedUploads } from '../commerce/files/service.ts';
import { Session, Verification } from '../db/entities/index.ts';
import type { Orm } from '../db/orm.ts';
import type { FileStorage } from '../integrations/files/storage.ts';

/**
 * Housekeeping of the account tables and of uploads. Deleting by cut-off is idempotent: a retry
 * deletes nothing more.
 */
export function createMaintenanceActivities(orm: Orm, storage: FileStorage) {
  return {
    async deleteExpiredSessions(before: string): Promise<number> {
      return orm.em.fork().nativeDelete(Session, { expiresAt: { $lt: new Date(before) } });
    },

    async deleteExpiredVerifications(before: string): Promise<number> {
      return orm.em.fork().nativeDelete(Verification, { expiresAt: { $lt: new Date(before) } });
    },

    /** Files whose upload was abandoned as of the cut-off: rows and stored parts. */
    async deleteAbandonedUploads(before: string): Promise<number> {
      return deleteAbandonedUploads(orm.em.fork(), storage, new Date(before));
    },
  };
}

export type MaintenanceActivities = ReturnType<typeof createMaintenanceActivities>;
