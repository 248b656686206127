/** The benefit calls the benefit pages make, typed by the API's own wire functions. */
import type {
  DiscordGuildWire,
  GitHubInstallationWire,
} from '../../../../commerce/benefit-connections/schemas.ts';
import type { BenefitGrantWire, BenefitWire } from '../../../../commerce/benefits/schemas.ts';
import type { downloadableWire } from '../../../../commerce/files/schemas.ts';
import { api, type ListResource } from '../../api/client';
import type { PageQuery } from '../../components/DataTable';

export type Benefit = BenefitWire;
export type BenefitGrant = BenefitGrantWire;
export type Downloadable = ReturnType<typeof downloadableWire>;
export type DiscordGuild = DiscordGuildWire;
export type GitHubInstallation = GitHubInstallationWire;

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

/** "Connect a Discord server" and "Connect GitHub" (commerce/benefit-connections). */
export const connectionsApi = {
  /** Where to send the browser: Discord's consent page, the GitHub App's installation page. */
  start: (provider: 'discord' | 'github') =>
    api.post<{ url: string }>(`/v1/benefit-connections/${provider}`, {}),
  /** What Discord sent the browser back with (`state`, `code`, `guild_id`). */
  completeDiscord: (query: Record<string, string>) =>
    api.post<DiscordGuild>('/v1/benefit-connections/discord/callback', query),
  /** What GitHub sent the browser back with (`state`, `installation_id`). */
  completeGitHub: (query: Record<string, string>) =>
    api.post<GitHubInstallation>('/v1/benefit-connections/github/callback', query),
  /** The roles of a guild connected before (a benefit's guild token). */
  discordRoles: (guildToken: string) =>
    api.post<DiscordGuild>('/v1/benefit-connections/discord/roles', { guild_token: guildToken }),
};
