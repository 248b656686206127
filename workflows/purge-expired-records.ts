import { defineQuery, proxyActivities, setHandler } from '@temporalio/workflow';
import type { MaintenanceActivities } from '../activities/maintenance.ts';

const { deleteExpiredSessions, deleteExpiredVerifications } =
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
  stage: 'deleting-sessions' | 'deleting-verifications' | 'done';
  sessionsDeleted: number;
  verificationsDeleted: number;
}

export const purgeExpiredRecordsState = defineQuery<PurgeExpiredRecordsState>('state');

/** Deletes the sessions and verification tokens that expired before a cut-off. */
export async function purgeExpiredRecords({
  before,
}: PurgeExpiredRecordsInput): Promise<PurgeExpiredRecordsState> {
  const state: PurgeExpiredRecordsState = {
    before,
    stage: 'deleting-sessions',
    sessionsDeleted: 0,
    verificationsDeleted: 0,
  };
  setHandler(purgeExpiredRecordsState, () => state);

  state.sessionsDeleted = await deleteExpiredSessions(before);
  state.stage = 'deleting-verifications';
  state.verificationsDeleted = await deleteExpiredVerifications(before);
  state.stage = 'done';
  return state;
}
