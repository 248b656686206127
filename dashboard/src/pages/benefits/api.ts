/** The benefit calls the benefit pages make, typed by the API's own wire functions. */
import type { BenefitGrantWire, BenefitWire } from '../../../../commerce/benefits/schemas.ts';
import type { downloadableWire } from '../../../../commerce/files/schemas.ts';
import { api, type ListResource } from '../../api/client';
import type { PageQuery } from '../../components/DataTable';

export type Benefit = BenefitWire;
export type BenefitGrant = BenefitGrantWire;
export type Downloadable = ReturnType<typeof downloadableWire>;

export const benefitTypes = [
  { value: 'custom', label: 'Custom note' },
  { value: 'license_keys', label: 'License keys' },
  { value: 'downloadables', label: 'File downloads' },
  { value: 'meter_credit', label: 'Meter credits' },
  { value: 'github_repository', label: 'GitHub repository access' },
  { value: 'discord', label: 'Discord role' },
] as const;
export type BenefitType = (typeof benefitTypes)[number]['value'];

export const benefitTypeLabel = (type: string) =>
  benefitTypes.find((option) => option.value === type)?.label ?? type;

/** Every benefit query starts with this key, so one invalidation refreshes them all. */
export const benefitsKey = ['benefits'] as const;

export const benefitsApi = {
  list: (query: PageQuery, signal: AbortSignal) =>
    api.get<ListResource<Benefit>>('/v1/benefits/', { query, signal }),
  get: (id: string, signal?: AbortSignal) => api.get<Benefit>(`/v1/benefits/${id}`, { signal }),
  create: (body: unknown) => api.post<Benefit>('/v1/benefits/', body),
  update: (id: string, body: unknown) => api.patch<Benefit>(`/v1/benefits/${id}`, body),
  delete: (id: string) => api.delete<null>(`/v1/benefits/${id}`),
  grants: (id: string, query: PageQuery, signal: AbortSignal) =>
    api.get<ListResource<BenefitGrant>>(`/v1/benefits/${id}/grants`, { query, signal }),
  /** The downloadables `ids` name (their names and sizes). */
  files: (ids: string[], signal: AbortSignal) =>
    api.get<ListResource<Downloadable>>('/v1/files/', { query: { ids, limit: 100 }, signal }),
};
