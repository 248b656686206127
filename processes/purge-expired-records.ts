import { defineQuery } from '@temporalio/workflow';

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
