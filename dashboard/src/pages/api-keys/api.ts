/**
 * The signed-in user's own API keys: Better Auth's apiKey endpoints under /api/auth/api-key
 * (camelCase), as accounts/api-keys.ts answers them. They act as the user, unlike an
 * organization's access tokens.
 */
import { api, type ListResource } from '../../api/client';
import type { PageQuery } from '../../components/DataTable';
import { pageOf } from '../organization/api';

/** accounts/api-keys.ts `apiKeyJson`, as JSON carries it (dates as text). */
export interface ApiKey {
  id: string;
  name: string | null;
  /** The key's first characters, to recognise it by. */
  start: string | null;
  prefix: string | null;
  enabled: boolean;
  requestCount: number;
  remaining: number | null;
  lastRequest: string | null;
  expiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** Every API key query starts with this key. */
export const apiKeysKey = ['api-keys'] as const;

export const apiKeyStateOptions = [
  { value: 'enabled', label: 'Enabled' },
  { value: 'disabled', label: 'Disabled' },
];

const auth = (path: string) => `/api/auth/api-key${path}`;

/** The table's sorting names, read from the keys Better Auth answers whole. */
const sortValues: Record<string, (key: ApiKey) => string> = {
  name: (key) => key.name ?? '',
  created_at: (key) => key.createdAt,
  last_request: (key) => key.lastRequest ?? '',
};

export const apiKeysApi = {
  /** The user's keys (a user holds a few): filtered by `state`, sorted and paged here. */
  list: async (query: PageQuery, signal: AbortSignal): Promise<ListResource<ApiKey>> => {
    const keys = await api.get<ApiKey[]>(auth('/list'), { signal });
    const { state } = query;
    const shown = state ? keys.filter((key) => key.enabled === (state === 'enabled')) : keys;
    return pageOf(shown, query, sortValues);
  },
  get: (id: string, signal?: AbortSignal) =>
    api.get<ApiKey>(auth('/get'), { query: { id }, signal }),
  /** `expiresIn` in seconds, null for a key that does not expire; the answer alone holds `key`. */
  create: (body: { name: string; expiresIn: number | null }) =>
    api.post<ApiKey & { key: string }>(auth('/create'), body),
  setEnabled: (keyId: string, enabled: boolean) =>
    api.post<ApiKey>(auth('/update'), { keyId, enabled }),
  delete: (keyId: string) => api.post<{ success: boolean }>(auth('/delete'), { keyId }),
};
