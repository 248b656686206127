import { defineQuery, patched, proxyActivities, setHandler } from '@temporalio/workflow';
import type { MaintenanceActivities } from '../activities/maintenance.ts';

const { deleteExpiredSessions, deleteExpiredVerifications, deleteAbandonedUploads } =
  proxyActivities<MaintenanceActivities>({
    startToCloseTimeout: '1 minute',
    retry: { maximumAttempts: 5 },
  });

export interface PurgeExpiredRecordsInput {
  /** ISO datetime: records that expired before it are deleted. */
  before: string;
}

export interface PurgeExpiredRecordsState {
  before: string;
  stage: 'deleting-sessions' | 'deleting-verifications' | 'deleting-abandoned-uploads' | 'done';
  sessionsDeleted: number;
  verificationsDeleted: number;
  /** Files whose upload was not completed within a day (commerce/files/service.ts). */
  abandonedUploadsDeleted: number;
}

export const purgeExpiredRecordsState = defineQuery<PurgeExpiredRecordsState>('state');

/**
 * Deletes the sessions and verification tokens that expired before a cut-off, and the files
 * whose upload was abandoned by then.
 */
export async function purgeExpiredRecords({
  before,
}: PurgeExpiredRecordsInput): Promise<PurgeExpiredRecordsState> {
  const state: PurgeExpiredRecordsState = {
    before,
    stage: 'deleting-sessions',
    sessionsDeleted: 0,
    verificationsDeleted: 0,
    abandonedUploadsDeleted: 0,
  };
  setHandler(purgeExpiredRecordsState, () => state);

  state.sessionsDeleted = await deleteExpiredSessions(before);
  state.stage = 'deleting-verifications';
  state.verificationsDeleted = await deleteExpiredVerifications(before);
  // Runs recorded before this step finish without it.
  if (patched('delete-abandoned-uploads')) {
    state.stage = 'deleting-abandoned-uploads';
    state.abandonedUploadsDeleted = await deleteAbandonedUploads(before);
  }
  state.stage = 'done';
  return state;
}
