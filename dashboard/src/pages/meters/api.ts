/** The meter calls the meter pages make, typed by the API's own wire functions. */
import type { MeterWire, meterQuantitiesWire } from '../../../../commerce/meters/schemas.ts';
import { api, type ListResource } from '../../api/client';
import type { PageQuery } from '../../components/DataTable';

export type Meter = MeterWire;
export type MeterQuantities = ReturnType<typeof meterQuantitiesWire>;

/** Every meter query starts with this key, so one invalidation refreshes them all. */
export const metersKey = ['meters'] as const;

export interface QuantitiesQuery {
  start_timestamp: string;
  end_timestamp: string;
  interval: 'hour' | 'day' | 'week' | 'month' | 'year';
}

export const metersApi = {
  list: (query: PageQuery, signal: AbortSignal) =>
    api.get<ListResource<Meter>>('/v1/meters/', { query, signal }),
  get: (id: string, signal?: AbortSignal) => api.get<Meter>(`/v1/meters/${id}`, { signal }),
  create: (body: unknown) => api.post<Meter>('/v1/meters/', body),
  update: (id: string, body: unknown) => api.patch<Meter>(`/v1/meters/${id}`, body),
  quantities: (id: string, query: QuantitiesQuery, signal: AbortSignal) =>
    api.get<MeterQuantities>(`/v1/meters/${id}/quantities`, { query: { ...query }, signal }),
};
