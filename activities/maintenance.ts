import { deleteSpentMailRecords } from '../commerce/customer-notifications/service.ts';
import { deleteExpiredCustomerAccess } from '../commerce/customer-sessions/service.ts';
import { deleteAbandonedUploads } from '../commerce/files/service.ts';
import { Session, Verification } from '../db/entities/index.ts';
import type { Orm } from '../db/orm.ts';
import type { FileStorage } from '../integrations/files/storage.ts';

/**
 * Housekeeping of the account tables, of uploads, and of the customers' portal access and mail
 * records. Deleting by cut-off is idempotent: a retry
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

    /** Customer sessions expired, and portal sign-in links expired or used, by the cut-off. */
    async deleteExpiredCustomerAccess(
      before: string,
    ): Promise<{ sessions: number; signInLinks: number }> {
      return deleteExpiredCustomerAccess(orm.em.fork(), new Date(before));
    },

    /** Customer mail claims and checks that can no longer stop a second mail. */
    async deleteSpentMailRecords(before: string): Promise<number> {
      return deleteSpentMailRecords(orm.em.fork(), new Date(before));
    },
  };
}

export type MaintenanceActivities = ReturnType<typeof createMaintenanceActivities>;
