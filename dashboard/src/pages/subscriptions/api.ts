/**
 * The subscription calls the dashboard makes on /v1/subscriptions, typed by the API's own wire
 * functions and workflow messages (type-only imports: nothing of the server is bundled).
 */
import type { SubscriptionWire } from '../../../../commerce/subscriptions/schemas.ts';
import type {
  CancellationReason,
  ProrationBehavior,
  SubscriptionStatus,
} from '../../../../domain/subscriptions.ts';
import type { SubscriptionWorkflowState } from '../../../../processes/subscription-messages.ts';
import { api, type ListResource } from '../../api/client';
import type { PageQuery } from '../../components/DataTable';

export type Subscription = SubscriptionWire;
export type WorkflowState = SubscriptionWorkflowState;

/** Every subscription query starts with this key: one invalidation refreshes them all. */
export const subscriptionsKey = ['subscriptions'] as const;
export const subscriptionKey = (id: string) => [...subscriptionsKey, id] as const;

export const statusLabels: Record<SubscriptionStatus, string> = {
  incomplete: 'Incomplete',
  incomplete_expired: 'Incomplete, expired',
  trialing: 'Trialing',
  active: 'Active',
  past_due: 'Past due',
  canceled: 'Canceled',
  unpaid: 'Unpaid',
};

export const reasonLabels: Record<CancellationReason, string> = {
  customer_service: 'Customer service',
  low_quality: 'Low quality',
  missing_features: 'Missing features',
  switched_service: 'Switched service',
  too_complex: 'Too complex',
  too_expensive: 'Too expensive',
  unused: 'Unused',
  other: 'Other',
};

export const prorationLabels: Record<ProrationBehavior, string> = {
  invoice: 'Charge the difference now',
  prorate: 'Bill the difference with the next renewal',
};

export const nextActionLabels: Record<WorkflowState['nextAction']['kind'], string> = {
  trial_conversion: 'Trial converts',
  renewal: 'Renews',
  payment_retry: 'Retries the payment',
  end: 'Ends',
  none: 'Nothing scheduled',
};

/** The body of a cancellation or a revocation: why, in the customer's words. */
export interface Cancellation {
  customer_cancellation_reason: CancellationReason | null;
  customer_cancellation_comment: string | null;
}

const path = (id: string) => `/v1/subscriptions/${encodeURIComponent(id)}`;

export const subscriptionsApi = {
  list: (query: PageQuery, signal: AbortSignal) =>
    api.get<ListResource<Subscription>>('/v1/subscriptions/', { query, signal }),
  get: (id: string, signal?: AbortSignal) => api.get<Subscription>(path(id), { signal }),
  /** What the subscription's workflow waits for; 404 when none runs (an ended subscription). */
  workflow: (id: string, signal?: AbortSignal) =>
    api.get<WorkflowState>(`${path(id)}/workflow`, { signal }),
  cancelAtPeriodEnd: (id: string, cancellation: Cancellation) =>
    api.patch<Subscription>(path(id), { cancel_at_period_end: true, ...cancellation }),
  uncancel: (id: string) => api.patch<Subscription>(path(id), { cancel_at_period_end: false }),
  revoke: (id: string, cancellation: Cancellation) =>
    api.patch<Subscription>(path(id), { revoke: true, ...cancellation }),
  changeProduct: (id: string, productId: string, prorationBehavior: ProrationBehavior) =>
    api.patch<Subscription>(path(id), {
      product_id: productId,
      proration_behavior: prorationBehavior,
    }),
  changeSeats: (id: string, seats: number, prorationBehavior: ProrationBehavior) =>
    api.patch<Subscription>(path(id), { seats, proration_behavior: prorationBehavior }),
};
