/** The usage event calls the dashboard makes, typed by the API's own wire functions (type-only). */
import type { eventNameWire, eventWire } from '../../../../commerce/events/schemas.ts';
import { api, type ListResource } from '../../api/client';
import type { PageQuery } from '../../components/DataTable';

export type UsageEvent = ReturnType<typeof eventWire>;
export type EventName = ReturnType<typeof eventNameWire>;

/** Every event query starts with this key. */
export const eventsKey = ['events'] as const;

export const eventSourceOptions = [
  { value: 'user', label: 'Ingested (user)' },
  { value: 'system', label: 'Tollgate (system)' },
];

export const eventsApi = {
  list: (query: PageQuery, signal: AbortSignal) =>
    api.get<ListResource<UsageEvent>>('/v1/events/', { query, signal }),
  get: (id: string, signal?: AbortSignal) =>
    api.get<UsageEvent>(`/v1/events/${encodeURIComponent(id)}`, { signal }),
  /** The names events were sent with, the hundred most used. */
  names: (signal: AbortSignal) =>
    api.get<ListResource<EventName>>('/v1/events/names', {
      query: { limit: 100, sorting: ['-occurrences'] },
      signal,
    }),
};
