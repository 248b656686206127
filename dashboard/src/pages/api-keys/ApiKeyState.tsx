import { StatusBadge } from '../../components/StatusBadge';
import type { ApiKey } from './api';

/** Enabled, disabled, or expired (an expired key is refused whatever its switch says). */
export function ApiKeyState({ apiKey }: { apiKey: ApiKey }) {
  if (apiKey.expiresAt && new Date(apiKey.expiresAt) <= new Date()) {
    return <StatusBadge status="expired" />;
  }
  return apiKey.enabled ? (
    <StatusBadge tone="ok">enabled</StatusBadge>
  ) : (
    <StatusBadge tone="neutral">disabled</StatusBadge>
  );
}
