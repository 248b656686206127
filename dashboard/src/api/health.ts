import { api } from './client';

export type ServiceName = 'database' | 'temporal' | 'stripe';

export interface ReadinessCheck {
  name: ServiceName;
  ok: boolean;
  latencyMs: number;
  detail: string;
}

export interface Readiness {
  status: 'ready' | 'degraded';
  /** ISO 8601 datetime. */
  checkedAt: string;
  checks: ReadinessCheck[];
}

export interface HealthInfo {
  temporalUiUrl: string | null;
  version: string;
}

export function fetchReadiness(signal?: AbortSignal): Promise<Readiness> {
  // 503 means "degraded" and carries the same report, so it is data rather than a failure.
  return api.get<Readiness>('/api/health/ready', { acceptStatuses: [503], signal });
}

export function fetchHealthInfo(signal?: AbortSignal): Promise<HealthInfo> {
  return api.get<HealthInfo>('/api/health/info', { signal });
}
