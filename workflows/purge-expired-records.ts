import { patched, proxyActivities, setHandler } from '@temporalio/workflow';
import type { MaintenanceActivities } from '../activities/maintenance.ts';
import {
  type PurgeExpiredRecordsInput,
  type PurgeExpiredRecordsState,
  purgeExpiredRecordsState,
} from '../processes/purge-expired-records.ts';

const {
  deleteExpiredSessions,
  deleteExpiredVerifications,
  deleteAbandonedUploads,
  deleteExpiredCustomerAccess,
  deleteSpentMailRecords,
} = proxyActivities<MaintenanceActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 5 },
});

/**
 * Deletes the sessions and verification tokens that expired before a cut-off, the files whose
 * upload was abandoned by then, the customer portal's expired sessions and expired or used
 * sign-in links, and the customer mail records past their use.
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
    customerSessionsDeleted: 0,
    customerSignInLinksDeleted: 0,
    customerMailRecordsDeleted: 0,
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
  // Likewise for the customer portal's records, added later still.
  if (patched('delete-customer-records')) {
    state.stage = 'deleting-customer-records';
    const access = await deleteExpiredCustomerAccess(before);
    state.customerSessionsDeleted = access.sessions;
    state.customerSignInLinksDeleted = access.signInLinks;
    state.customerMailRecordsDeleted = await deleteSpentMailRecords(before);
  }
  state.stage = 'done';
  return state;
}
