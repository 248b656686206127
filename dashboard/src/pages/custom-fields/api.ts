/** The custom field calls the custom field pages make, typed by the API's own wire function. */
import type { CustomFieldWire } from '../../../../commerce/custom-fields/schemas.ts';
import { api, type ListResource } from '../../api/client';
import type { PageQuery } from '../../components/DataTable';

export type CustomField = CustomFieldWire;

export const customFieldTypes = [
  { value: 'text', label: 'Text' },
  { value: 'number', label: 'Number' },
  { value: 'date', label: 'Date' },
  { value: 'checkbox', label: 'Checkbox' },
  { value: 'select', label: 'Select' },
] as const;
export type CustomFieldType = (typeof customFieldTypes)[number]['value'];

/** Every custom field query starts with this key, so one invalidation refreshes them all. */
export const customFieldsKey = ['custom-fields'] as const;

export const customFieldsApi = {
  list: (query: PageQuery, signal: AbortSignal) =>
    api.get<ListResource<CustomField>>('/v1/custom-fields/', { query, signal }),
  get: (id: string, signal?: AbortSignal) =>
    api.get<CustomField>(`/v1/custom-fields/${id}`, { signal }),
  create: (body: unknown) => api.post<CustomField>('/v1/custom-fields/', body),
  update: (id: string, body: unknown) => api.patch<CustomField>(`/v1/custom-fields/${id}`, body),
  delete: (id: string) => api.delete<null>(`/v1/custom-fields/${id}`),
};
