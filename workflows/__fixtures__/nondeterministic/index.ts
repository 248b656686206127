// A deliberately incompatible edit of purgeExpiredRecords: its activities swapped. The replay
// test proves that replaying recorded histories catches exactly this kind of change.
import { proxyActivities } from '@temporalio/workflow';
import type { MaintenanceActivities } from '../../../activities/maintenance.ts';

const { deleteExpiredSessions, deleteExpiredVerifications } =
  proxyActivities<MaintenanceActivities>({
    startToCloseTimeout: '1 minute',
  });

export async function purgeExpiredRecords({ before }: { before: string }) {
  const verificationsDeleted = await deleteExpiredVerifications(before);
  const sessionsDeleted = await deleteExpiredSessions(before);
  return { before, stage: 'done', sessionsDeleted, verificationsDeleted };
}
