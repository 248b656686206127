/**
 * Deterministic workflow ids: the same request always names the same workflow, so a retried
 * API call finds the running one instead of starting a second.
 */
export const workflowIds = {
  purgeExpiredRecords: (before: Date) => `purge-expired:${before.toISOString()}`,
  email: (id: string) => `email:${id}`,
  invitation: (id: string) => `invitation:${id}`,
} as const;
