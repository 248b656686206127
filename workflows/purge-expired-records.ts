import { patched, proxyActivities, setHandler } from '@temporalio/workflow';
import type { MaintenanceActivities } from '../activities/maintenance.ts';
import {
  type PurgeExpiredRecordsInput,
  type PurgeExpiredRecordsState,
  purgeExpiredRecordsState,
} from '../processes/purge-expired-records.ts';

const { deleteExpiredSessions, deleteExpiredVerifications, deleteAbandonedUploads } =
  proxyActivities<MaintenanceActivities>({
    startToCloseTimeout: '1 minute',
    retry: { maximumAttempts: 5 },
  });

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
