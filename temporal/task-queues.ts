/** Every task queue in one place: workers poll them, clients start workflows on them. */
export const taskQueues = {
  /** Business processes: checkout, subscription, invitation, refund, benefit grant, maintenance. */
  main: 'tollgate-main',
  /** Webhook deliveries (activities only): endpoints that hang never hold the main queue's slots. */
  webhooks: 'tollgate-webhooks',
} as const;

export type TaskQueue = (typeof taskQueues)[keyof typeof taskQueues];
