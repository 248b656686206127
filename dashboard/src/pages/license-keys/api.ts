/** The license key calls the dashboard makes, typed by the API's own wire functions (type-only). */
import type {
  LicenseKeyUpdateInput,
  licenseKeyWire,
  licenseKeyWithActivationsWire,
} from '../../../../commerce/license-keys/schemas.ts';
import { api, type ListResource } from '../../api/client';
import type { PageQuery } from '../../components/DataTable';

export type LicenseKey = ReturnType<typeof licenseKeyWire>;
export type LicenseKeyWithActivations = ReturnType<typeof licenseKeyWithActivationsWire>;
export type LicenseKeyStatus = LicenseKey['status'];
export type Activation = LicenseKeyWithActivations['activations'][number];

/** Every license key query starts with this key. */
export const licenseKeysKey = ['license-keys'] as const;

export const licenseKeyStatusOptions = [
  { value: 'granted', label: 'Granted' },
  { value: 'disabled', label: 'Disabled' },
  { value: 'revoked', label: 'Revoked' },
];

const keyPath = (id: string) => `/v1/license-keys/${encodeURIComponent(id)}`;

export const licenseKeysApi = {
  list: (query: PageQuery, signal: AbortSignal) =>
    api.get<ListResource<LicenseKey>>('/v1/license-keys/', { query, signal }),
  get: (id: string, signal?: AbortSignal) =>
    api.get<LicenseKeyWithActivations>(keyPath(id), { signal }),
  /**
   * A new status. The update always sets `usage` (Polar's SDK always sends it, 0 unless told),
   * so the key's own usage goes along to keep it.
   */
  setStatus: (key: LicenseKey, status: LicenseKeyStatus) =>
    api.patch<LicenseKey>(keyPath(key.id), {
      status,
      usage: key.usage,
    } satisfies Partial<LicenseKeyUpdateInput>),
  /** Frees the activation's slot, as the seller's API deactivates: by the key's text. */
  deactivate: (key: LicenseKey, activationId: string) =>
    api.post<null>('/v1/license-keys/deactivate', {
      key: key.key,
      organization_id: key.organization_id,
      activation_id: activationId,
    }),
};
