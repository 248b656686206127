/**
 * The calls of the organization pages: Better Auth's organization endpoints under /api/auth
 * (members, invitations, teams; camelCase) and /v1 for what the commerce side keeps (access
 * tokens, webhook endpoints, settings; snake_case). Both act for the session's active organization.
 */
import type { accessTokenWire } from '../../../../commerce/access-tokens/schemas.ts';
import type { OrganizationWire } from '../../../../commerce/organizations/schemas.ts';
import type {
  WebhookEndpointWire,
  webhookDeliveryWire,
} from '../../../../commerce/webhooks/schemas.ts';
import { api, type ListResource } from '../../api/client';
import type { PageQuery } from '../../components/DataTable';

const auth = (path: string) => `/api/auth/organization${path}`;

/** Every query of these pages starts with this key, so switching organization resets them all. */
export const organizationKey = ['organization'] as const;
export const membersKey = [...organizationKey, 'members'] as const;
export const invitationsKey = [...organizationKey, 'invitations'] as const;
export const teamsKey = [...organizationKey, 'teams'] as const;
export const tokensKey = [...organizationKey, 'tokens'] as const;
export const webhooksKey = [...organizationKey, 'webhooks'] as const;
export const settingsKey = [...organizationKey, 'settings'] as const;

export interface Member {
  id: string;
  organizationId: string;
  userId: string;
  role: string;
  createdAt: string;
  user: { id: string; name: string; email: string; image: string | null };
}

export interface Invitation {
  id: string;
  organizationId: string;
  email: string;
  role: string;
  teamId: string | null;
  status: 'pending' | 'accepted' | 'rejected' | 'canceled';
  expiresAt: string;
  inviterId: string;
}

export interface Team {
  id: string;
  name: string;
  organizationId: string;
  createdAt: string;
  updatedAt: string | null;
}

export interface TeamMember {
  id: string;
  teamId: string;
  userId: string;
  createdAt: string;
}

export type AccessToken = ReturnType<typeof accessTokenWire>;
export type WebhookEndpoint = WebhookEndpointWire;
export type WebhookDelivery = ReturnType<typeof webhookDeliveryWire>;
export type OrganizationSettings = OrganizationWire;

/** The roles an organization grants (domain/organization-permissions.ts), for the selects. */
export const roleOptions = [
  { value: 'member', label: 'Member' },
  { value: 'admin', label: 'Admin' },
  { value: 'owner', label: 'Owner' },
] as const;

/** Better Auth pages members by offset; the table pages by number. */
const memberSortFields: Record<string, string> = { created_at: 'createdAt', role: 'role' };

export const membersApi = {
  list: async (query: PageQuery, signal: AbortSignal): Promise<ListResource<Member>> => {
    const [criterion = '-created_at'] = query.sorting;
    const { members, total } = await api.get<{ members: Member[]; total: number }>(
      auth('/list-members'),
      {
        signal,
        query: {
          limit: query.limit,
          offset: (query.page - 1) * query.limit,
          sortBy: memberSortFields[criterion.replace(/^-/, '')] ?? 'createdAt',
          sortDirection: criterion.startsWith('-') ? 'desc' : 'asc',
        },
      },
    );
    return { items: members, pagination: pagination(total, query.limit) };
  },
  /** Every member (up to the membership limit), for pickers. */
  all: (signal?: AbortSignal) =>
    api
      .get<{ members: Member[] }>(auth('/list-members'), { signal })
      .then(({ members }) => members),
  /** How many members are owners: the last one can be neither removed nor demoted. */
  ownerCount: (signal?: AbortSignal) =>
    api
      .get<{ total: number }>(auth('/list-members'), {
        signal,
        query: { limit: 1, filterField: 'role', filterOperator: 'contains', filterValue: 'owner' },
      })
      .then(({ total }) => total),
  activeRole: (signal?: AbortSignal) =>
    api.get<{ role: string }>(auth('/get-active-member-role'), { signal }),
  updateRole: (memberId: string, role: string) =>
    api.post<Member>(auth('/update-member-role'), { memberId, role }),
  remove: (memberIdOrEmail: string) =>
    api.post<{ member: Member }>(auth('/remove-member'), { memberIdOrEmail }),
};

export const invitationsApi = {
  list: (signal?: AbortSignal) => api.get<Invitation[]>(auth('/list-invitations'), { signal }),
  invite: (body: { email: string; role: string; teamId?: string }) =>
    api.post<Invitation>(auth('/invite-member'), body),
  /** Mails it again with a new expiry (Better Auth's invite-member with `resend`). */
  resend: (invitation: Invitation) =>
    api.post<Invitation>(auth('/invite-member'), {
      email: invitation.email,
      role: invitation.role,
      resend: true,
    }),
  cancel: (invitationId: string) =>
    api.post<Invitation>(auth('/cancel-invitation'), { invitationId }),
};

export const teamsApi = {
  list: (signal?: AbortSignal) => api.get<Team[]>(auth('/list-teams'), { signal }),
  create: (name: string) => api.post<Team>(auth('/create-team'), { name }),
  rename: (teamId: string, name: string) =>
    api.post<Team>(auth('/update-team'), { teamId, data: { name } }),
  remove: (teamId: string) => api.post<{ message: string }>(auth('/remove-team'), { teamId }),
  members: (teamId: string, signal?: AbortSignal) =>
    api.get<TeamMember[]>(auth('/list-team-members'), { query: { teamId }, signal }),
  addMember: (teamId: string, userId: string) =>
    api.post<TeamMember>(auth('/add-team-member'), { teamId, userId }),
  removeMember: (teamId: string, userId: string) =>
    api.post<{ message: string }>(auth('/remove-team-member'), { teamId, userId }),
};

export const tokensApi = {
  list: (query: PageQuery, signal: AbortSignal) =>
    api.get<ListResource<AccessToken>>('/v1/organization-access-tokens/', { query, signal }),
  create: (body: { comment: string; scopes: string[]; expires_in: number | null }) =>
    api.post<{ organization_access_token: AccessToken; token: string }>(
      '/v1/organization-access-tokens/',
      body,
    ),
  delete: (id: string) => api.delete<null>(`/v1/organization-access-tokens/${id}`),
};

export const webhooksApi = {
  list: (query: PageQuery, signal: AbortSignal) =>
    api.get<ListResource<WebhookEndpoint>>('/v1/webhooks/endpoints', { query, signal }),
  get: (id: string, signal?: AbortSignal) =>
    api.get<WebhookEndpoint>(`/v1/webhooks/endpoints/${id}`, { signal }),
  create: (body: { url: string; format: string; events: string[] }) =>
    api.post<WebhookEndpoint>('/v1/webhooks/endpoints', body),
  update: (id: string, body: { enabled?: boolean; url?: string; events?: string[] }) =>
    api.patch<WebhookEndpoint>(`/v1/webhooks/endpoints/${id}`, body),
  /** Queues a test event (`organization.updated`) to the endpoint (Tollgate's); answers it. */
  sendTest: (id: string) =>
    api.post<WebhookDelivery['webhook_event']>(`/v1/webhooks/endpoints/${id}/test`),
  delete: (id: string) => api.delete<null>(`/v1/webhooks/endpoints/${id}`),
  /** A new signing secret: the answer is the only place it is shown. */
  resetSecret: (id: string) =>
    api.patch<WebhookEndpoint>(`/v1/webhooks/endpoints/${id}/secret`, undefined),
  deliveries: (endpointId: string, query: PageQuery, signal: AbortSignal) =>
    api.get<ListResource<WebhookDelivery>>('/v1/webhooks/deliveries', {
      query: { ...query, endpoint_id: endpointId },
      signal,
    }),
  redeliver: (eventId: string) => api.post<null>(`/v1/webhooks/events/${eventId}/redeliver`),
};

export const settingsApi = {
  get: (id: string, signal?: AbortSignal) =>
    api.get<OrganizationSettings>(`/v1/organizations/${id}`, { signal }),
  update: (id: string, body: unknown) =>
    api.patch<OrganizationSettings>(`/v1/organizations/${id}`, body),
  /** The slug is Better Auth's (the /v1 update has no slug). */
  updateSlug: (slug: string) => api.post<unknown>(auth('/update'), { data: { slug } }),
};

const pagination = (total: number, limit: number) => ({
  total_count: total,
  max_page: Math.ceil(total / limit),
});

/**
 * One page of a list Better Auth answers whole (invitations, teams: bounded by the organization's
 * limits), sorted and paged here so it shows in the same table as the server-paged lists.
 */
export function pageOf<Row>(
  rows: Row[],
  query: PageQuery,
  sortValues: Record<string, (row: Row) => string>,
): ListResource<Row> {
  const [criterion] = query.sorting;
  const sortKey = criterion ? sortValues[criterion.replace(/^-/, '')] : undefined;
  const sorted = sortKey
    ? [...rows].sort(
        (a, b) => sortKey(a).localeCompare(sortKey(b)) * (criterion?.startsWith('-') ? -1 : 1),
      )
    : rows;
  const start = (query.page - 1) * query.limit;
  return {
    items: sorted.slice(start, start + query.limit),
    pagination: pagination(rows.length, query.limit),
  };
}
