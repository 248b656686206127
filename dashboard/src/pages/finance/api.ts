/**
 * Finance's calls on /v1/subscriptions: the failed and recovered renewals lists (Tollgate's
 * own), the dunning actions and the update-card link, typed by the API's wire functions
 * (type-only imports).
 */
import type {
  FailedRenewalTotal,
  FailedRenewalWire,
} from '../../../../commerce/subscriptions/schemas.ts';
import { api, type ListResource } from '../../api/client';
import type { PageQuery } from '../../components/DataTable';
import type { Subscription } from '../subscriptions/api';
import type { RetryResult } from './recovery';

export type FailedRenewal = FailedRenewalWire;
export type FailedRenewalTotals = FailedRenewalTotal[];

export interface FailedRenewalList extends ListResource<FailedRenewal> {
  /** Over every failed renewal the filter matches, not only this page. */
  totals: FailedRenewalTotals;
}

/** Every failed-renewal query starts with this key: one invalidation refreshes list and totals. */
export const failedRenewalsKey = ['failed-renewals'] as const;

/** Finance's actions on a failed renewal, by the path segment that asks for them. */
export type DunningAction = 'retry' | 'cancel' | 'resolve';

/** The subscription after an action; after a retry, with what the charge did. */
export type DunningResult = Subscription & { retry_result?: RetryResult | null };

/** What finance may do about a failed renewal: a dunning action, or mail the customer the fix. */
export type FinanceAction = DunningAction | 'update_card_link';

/** Whom the update-card link was mailed to. */
export interface UpdateCardLinkSent {
  sent_to: string;
}

export const failedRenewalsApi = {
  list: (query: Partial<PageQuery>, signal: AbortSignal) =>
    api.get<FailedRenewalList>('/v1/subscriptions/failed-renewals', { query, signal }),
  act: (subscriptionId: string, action: DunningAction) =>
    api.post<DunningResult>(
      `/v1/subscriptions/${encodeURIComponent(subscriptionId)}/dunning/${action}`,
    ),
  /** Mails the customer the portal link that pays the renewal with a new card. */
  sendUpdateCardLink: (subscriptionId: string) =>
    api.post<UpdateCardLinkSent>(
      `/v1/subscriptions/${encodeURIComponent(subscriptionId)}/update-card-link`,
    ),
  /** The failed renewals paid after all, latest first, with who recovered them. */
  recovered: (query: Partial<PageQuery>, signal: AbortSignal) =>
    api.get<ListResource<FailedRenewal>>('/v1/subscriptions/recovered-renewals', {
      query,
      signal,
    }),
};
