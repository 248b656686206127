import { defineQuery } from '@temporalio/workflow';

export interface PurgeExpiredRecordsInput {
  /** ISO datetime: records that expired before it are deleted. */
  before: string;
}

export interface PurgeExpiredRecordsState {
  before: string;
  stage:
    | 'deleting-sessions'
    | 'deleting-verifications'
    | 'deleting-abandoned-uploads'
    | 'deleting-customer-records'
    | 'done';
  sessionsDeleted: number;
  verificationsDeleted: number;
  /** Files whose upload was not completed within a day (commerce/files/service.ts). */
  abandonedUploadsDeleted: number;
  /** Customer portal sessions expired by the cut-off. */
  customerSessionsDeleted: number;
  /** Customer portal sign-in links expired or used by the cut-off. */
  customerSignInLinksDeleted: number;
  /** Customer mail claims, relay marks and card checks past their use (commerce/customer-notifications). */
  customerMailRecordsDeleted: number;
}

export const purgeExpiredRecordsState = defineQuery<PurgeExpiredRecordsState>('state');
