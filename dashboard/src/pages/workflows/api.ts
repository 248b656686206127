/**
 * The workflow calls the dashboard makes on /v1/workflows, typed by the API's own wire shapes
 * (type-only imports: nothing of the server is bundled).
 */
import type {
  WorkflowInsightWire,
  WorkflowKind,
  WorkflowStatus,
  WorkflowSummaryWire,
} from '../../../../commerce/workflows/schemas.ts';
import { workflowIds } from '../../../../processes/workflow-ids.ts';
import { api, type ListResource } from '../../api/client';
import type { PageQuery } from '../../components/DataTable';

export type { WorkflowInsightWire, WorkflowKind, WorkflowStatus, WorkflowSummaryWire };

export const kindLabels: Record<WorkflowKind, string> = {
  checkout: 'Checkouts',
  subscription: 'Subscriptions',
  refund: 'Refunds',
  benefit_grant: 'Benefit grants',
  webhook_endpoint: 'Webhook endpoints',
  invitation: 'Invitations',
};

export const isWorkflowKind = (value: string): value is WorkflowKind => value in kindLabels;

/** Workflow ids whose entity id follows a fixed prefix (grants are named by customer and benefit). */
const prefixes: [WorkflowKind, string][] = [
  ['checkout', workflowIds.checkout('')],
  ['subscription', workflowIds.subscription('')],
  ['refund', workflowIds.refund('')],
  ['invitation', workflowIds.invitation('')],
  ['webhook_endpoint', workflowIds.webhookEndpoint('')],
];

/** `subscription:<id>` → the kind and entity the API reads it by; null for ids it cannot. */
export function entityOfWorkflowId(
  workflowId: string,
): { kind: WorkflowKind; entityId: string } | null {
  for (const [kind, prefix] of prefixes) {
    if (workflowId.startsWith(prefix)) return { kind, entityId: workflowId.slice(prefix.length) };
  }
  return null;
}

export const workflowPagePath = (kind: WorkflowKind, entityId: string) =>
  `/workflows/${kind}/${encodeURIComponent(entityId)}`;

export const workflowKey = (kind: WorkflowKind, entityId: string) =>
  ['workflows', kind, entityId] as const;

export const fetchWorkflow = (kind: WorkflowKind, entityId: string, signal: AbortSignal) =>
  api.get<WorkflowInsightWire>(`/v1/workflows/${kind}/${encodeURIComponent(entityId)}`, {
    signal,
  });

/** A listed workflow, with the dashboard page of the entity it serves when there is one. */
export interface WorkflowRow extends WorkflowSummaryWire {
  entity_path: string | null;
}

interface WorkflowList extends ListResource<WorkflowSummaryWire> {
  /** The server scanned its limit of workflows: older ones may be missing. */
  truncated: boolean;
}

/**
 * A page of the organization's workflows of a kind, each with its entity's page: a checkout's
 * order and a refund's order are looked up for the whole page in one request.
 */
export async function fetchWorkflowPage(
  kind: WorkflowKind,
  query: PageQuery,
  signal: AbortSignal,
): Promise<ListResource<WorkflowRow> & { truncated: boolean }> {
  // Newest first is the only order the server lists in; `status` may name several (`running,failed`).
  const statuses = String(query.status ?? '')
    .split(',')
    .filter(Boolean);
  const list = await api.get<WorkflowList>('/v1/workflows/', {
    query: { page: query.page, limit: query.limit, type: kind, status: statuses },
    signal,
  });
  const paths = await entityPaths(
    kind,
    list.items.map((item) => item.entity_id),
    signal,
  );
  return {
    ...list,
    items: list.items.map((item) => ({ ...item, entity_path: paths.get(item.entity_id) ?? null })),
  };
}

async function entityPaths(
  kind: WorkflowKind,
  ids: string[],
  signal: AbortSignal,
): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const limit = ids.length;
  switch (kind) {
    case 'checkout': {
      const orders = await api.get<ListResource<{ id: string; checkout_id: string | null }>>(
        '/v1/orders/',
        { query: { checkout_id: ids, limit }, signal },
      );
      return new Map(
        orders.items.flatMap((order) =>
          order.checkout_id ? [[order.checkout_id, `/orders/${order.id}`]] : [],
        ),
      );
    }
    case 'refund': {
      const refunds = await api.get<ListResource<{ id: string; order_id: string }>>(
        '/v1/refunds/',
        { query: { id: ids, limit }, signal },
      );
      return new Map(refunds.items.map((refund) => [refund.id, `/orders/${refund.order_id}`]));
    }
    case 'subscription':
      return new Map(ids.map((id) => [id, `/subscriptions/${id}`]));
    case 'invitation':
      return new Map(ids.map((id) => [id, '/organization/invitations']));
    case 'webhook_endpoint':
      return new Map(ids.map((id) => [id, '/organization/webhooks']));
    case 'benefit_grant':
      return new Map();
  }
}
