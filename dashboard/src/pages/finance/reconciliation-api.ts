import { api } from '../../api/client';

/** What /api/ops answers for platform admins: the upkeep schedules and the payment mismatches. */

export type UpkeepJob =
  | 'purgeExpired'
  | 'expireUploads'
  | 'customerReminders'
  | 'reconcilePayments';

export interface UpkeepSchedule {
  job: UpkeepJob;
  scheduleId: string;
  everySeconds: number | null;
  paused: boolean;
  lastRunAt: string | null;
  lastWorkflowId: string | null;
  nextRunAt: string | null;
}

export type MismatchKind = 'paid_without_order' | 'order_without_payment' | 'amount_differs';

export interface PaymentMismatch {
  id: string;
  kind: MismatchKind;
  paymentIntentId: string | null;
  orderId: string | null;
  organizationId: string | null;
  stripeAmount: number | null;
  recordedAmount: number | null;
  currency: string | null;
  occurredAt: string;
  detectedAt: string;
  lastSeenAt: string;
}

export const upkeepJobLabels: Record<UpkeepJob, string> = {
  purgeExpired: 'Purge expired sessions, tokens and sign-in links',
  expireUploads: 'Expire abandoned uploads',
  customerReminders: 'Customer reminders (trial end, renewal, card expiry)',
  reconcilePayments: 'Reconcile Stripe payments with orders',
};

export const mismatchKindLabels: Record<MismatchKind, string> = {
  paid_without_order: 'Paid at Stripe, no paid order',
  order_without_payment: 'Paid order, no succeeded payment',
  amount_differs: 'Amount differs',
};

export const upkeepKey = ['ops', 'upkeep'] as const;
export const mismatchesKey = ['ops', 'reconciliation', 'mismatches'] as const;

export const opsApi = {
  schedules: (signal?: AbortSignal) =>
    api.get<{ items: UpkeepSchedule[] }>('/api/ops/upkeep', { signal }),
  trigger: (job: UpkeepJob) => api.post<{ job: UpkeepJob }>(`/api/ops/upkeep/${job}/trigger`),
  mismatches: (signal?: AbortSignal) =>
    api.get<{ items: PaymentMismatch[] }>('/api/ops/reconciliation/mismatches', { signal }),
};
