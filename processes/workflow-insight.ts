import {
  type Client,
  type QueryDefinition,
  type WorkflowExecutionInfo,
  type WorkflowHandle,
  WorkflowNotFoundError,
} from '@temporalio/client';
import { optionalTsToDate } from '@temporalio/common';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { workflowMetadataQuery } from '@temporalio/workflow';
import { resourceNotFound } from '../commerce/errors.ts';
import {
  failureMessage,
  HistoryDigest,
  type HistoryEventJson,
  type WorkflowFailure,
} from '../commerce/workflows/history.ts';
import {
  type PendingActivityWire,
  visibilityStatusNames,
  type WorkflowInsightWire,
  type WorkflowKind,
  type WorkflowStatus,
  type WorkflowSummaryWire,
  workflowSummaryWire,
} from '../commerce/workflows/schemas.ts';
import type { Orm } from '../db/orm.ts';
import { placeholders } from '../db/sql.ts';
import type { Scope } from '../domain/scopes.ts';
import { subscriptionStateQuery } from './subscription-messages.ts';
import { workflowIds, workflowTypes } from './workflow-ids.ts';

type EntityManager = Orm['em'];

/** How an entity kind maps to its workflows, and which scope reads them. */
interface KindDefinition {
  workflowType: string;
  scope: Scope;
  /** The workflow of the caller's entity; null when no such entity is the caller's. */
  workflowIdOf(em: EntityManager, organizationId: string, entityId: string): Promise<string | null>;
  /** The caller's entities among these workflows: workflow id → entity id. */
  entitiesOf(
    em: EntityManager,
    organizationId: string,
    workflowIds: string[],
  ): Promise<Map<string, string>>;
  /** The workflow's own state query, when it has one. */
  stateQuery?: QueryDefinition<unknown>;
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Which of `ids` name rows of `table` owned by the organization (one query). */
async function ownedIds(
  em: EntityManager,
  table: string,
  organizationId: string,
  ids: string[],
): Promise<Set<string>> {
  // Workflow ids are read from Temporal, which other tools (replays) share: only uuids are ours.
  const candidates = ids.filter((id) => uuidPattern.test(id));
  if (candidates.length === 0) return new Set();
  const rows = await em
    .getConnection()
    .execute<{ id: string }[]>(
      `select id from ${table} where organization_id = ? and id in (${placeholders(candidates.length)})`,
      [organizationId, ...candidates],
    );
  return new Set(rows.map((row) => row.id));
}

/** A kind whose workflow id is `<prefix><entity id>` and whose table has the organization. */
function organizationEntityKind(
  table: string,
  workflowType: string,
  scope: Scope,
  workflowIdOf: (entityId: string) => string,
  stateQuery?: QueryDefinition<unknown>,
): KindDefinition {
  const prefix = workflowIdOf('');
  return {
    workflowType,
    scope,
    stateQuery,
    async workflowIdOf(em, organizationId, entityId) {
      const owned = await ownedIds(em, table, organizationId, [entityId]);
      return owned.has(entityId) ? workflowIdOf(entityId) : null;
    },
    async entitiesOf(em, organizationId, ids) {
      const entityIds = ids
        .filter((id) => id.startsWith(prefix))
        .map((id) => id.slice(prefix.length));
      const owned = await ownedIds(em, table, organizationId, entityIds);
      return new Map([...owned].map((id) => [workflowIdOf(id), id]));
    },
  };
}

/** Grant workflows run per customer and benefit (`grant:<customer>:<benefit>`): mapped to the grant. */
const benefitGrantKind: KindDefinition = {
  workflowType: workflowTypes.benefitGrant,
  scope: 'benefits:read',
  async workflowIdOf(em, organizationId, entityId) {
    const [grant] = await em.getConnection().execute<{ customer_id: string; benefit_id: string }[]>(
      `select g.customer_id, g.benefit_id from benefit_grants g
       join benefits b on b.id = g.benefit_id where b.organization_id = ? and g.id = ?`,
      [organizationId, entityId],
    );
    return grant ? workflowIds.benefitGrant(grant.customer_id, grant.benefit_id) : null;
  },
  async entitiesOf(em, organizationId, ids) {
    const prefix = workflowIds.benefitGrant('', '').slice(0, -1);
    const pairs = ids
      .filter((id) => id.startsWith(prefix))
      .map((id) => id.slice(prefix.length).split(':'))
      .filter((pair) => pair.length === 2 && pair.every((id) => uuidPattern.test(id)));
    if (pairs.length === 0) return new Map();
    const rows = await em
      .getConnection()
      .execute<{ id: string; customer_id: string; benefit_id: string }[]>(
        `select g.id, g.customer_id, g.benefit_id from benefit_grants g
         join benefits b on b.id = g.benefit_id
         where b.organization_id = ? and (g.customer_id, g.benefit_id) in (${pairs.map(() => '(?, ?)').join(', ')})`,
        [organizationId, ...pairs.flat()],
      );
    return new Map(
      rows.map((row) => [workflowIds.benefitGrant(row.customer_id, row.benefit_id), row.id]),
    );
  },
};

export const kindDefinitions: Record<WorkflowKind, KindDefinition> = {
  checkout: organizationEntityKind(
    'checkouts',
    workflowTypes.checkout,
    'checkouts:read',
    workflowIds.checkout,
  ),
  subscription: organizationEntityKind(
    'subscriptions',
    workflowTypes.subscription,
    'subscriptions:read',
    workflowIds.subscription,
    subscriptionStateQuery,
  ),
  refund: organizationEntityKind(
    'refunds',
    workflowTypes.refund,
    'refunds:read',
    workflowIds.refund,
  ),
  benefit_grant: benefitGrantKind,
  webhook_endpoint: organizationEntityKind(
    'webhook_endpoints',
    workflowTypes.webhookEndpoint,
    'webhooks:read',
    workflowIds.webhookEndpoint,
  ),
  invitation: organizationEntityKind(
    'invitations',
    workflowTypes.invitation,
    'organizations:read',
    workflowIds.invitation,
  ),
};

/** A query of a running workflow gets this long: a workflow whose worker is down must not hang the page. */
const queryTimeoutMs = 5000;

/** History is read in pages of this many events (the digest keeps only what it shows). */
const historyPageSize = 500;

export interface WorkflowServices {
  em: EntityManager;
  temporal: Client;
  namespace: string;
  /** The Temporal Web UI's base URL, when one is configured. */
  webUiUrl: string | undefined;
}

/** The workflow of one of the caller's entities: summary, state, waits, timeline, failures. */
export async function workflowInsight(
  { em, temporal, namespace, webUiUrl }: WorkflowServices,
  organizationId: string,
  kind: WorkflowKind,
  entityId: string,
): Promise<WorkflowInsightWire> {
  const definition = kindDefinitions[kind];
  const workflowId = await definition.workflowIdOf(em, organizationId, entityId);
  if (!workflowId) throw resourceNotFound();
  let description: Awaited<ReturnType<WorkflowHandle['describe']>>;
  try {
    description = await temporal.workflow.getHandle(workflowId).describe();
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) {
      throw resourceNotFound(
        `No workflow ${workflowId}: it was never started, or retention has deleted its history.`,
      );
    }
    throw error;
  }
  const { runId } = description;
  const handle = temporal.workflow.getHandle(workflowId, runId);
  const running = description.status.name === 'RUNNING';
  const [digest, state, metadata] = await Promise.all([
    readHistory(temporal, namespace, workflowId, runId),
    running && definition.stateQuery ? queryOrNull(temporal, handle, definition.stateQuery) : null,
    running ? queryOrNull(temporal, handle, workflowMetadataQuery) : null,
  ]);
  const pendingActivities = (description.raw.pendingActivities ?? []).map(pendingActivityWire);
  const handlers = metadata?.definition;
  return {
    ...workflowSummaryWire(kind, entityId, description),
    state: state ?? null,
    waiting_for: {
      activities: pendingActivities.map(({ wire }) => wire),
      timers: digest.pendingTimers,
      ...(handlers && {
        signals: (handlers.signalDefinitions ?? []).map(({ name }) => name ?? ''),
        updates: (handlers.updateDefinitions ?? []).map(({ name }) => name ?? ''),
      }),
    },
    timeline: digest.timeline,
    timeline_omitted: digest.timelineOmitted,
    failures: [
      ...digest.failures,
      ...pendingActivities.flatMap(({ failure }) => (failure ? [failure] : [])),
    ],
    web_ui_url: webUiUrl
      ? `${webUiUrl.replace(/\/+$/, '')}/namespaces/${encodeURIComponent(namespace)}/workflows/` +
        `${encodeURIComponent(workflowId)}/${runId}/history`
      : null,
  };
}

/** The run's whole history, page by page, into a bounded digest. */
async function readHistory(
  temporal: Client,
  namespace: string,
  workflowId: string,
  runId: string,
): Promise<HistoryDigest> {
  const digest = new HistoryDigest();
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await temporal.workflowService.getWorkflowExecutionHistory({
      namespace,
      execution: { workflowId, runId },
      maximumPageSize: historyPageSize,
      nextPageToken,
    });
    const { events } = JSON.parse(historyToJSON(page.history ?? {})) as {
      events?: HistoryEventJson[];
    };
    for (const event of events ?? []) digest.add(event);
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
  return digest;
}

/**
 * A query's answer, or null when the workflow cannot answer now (its worker is down or busy
 * past the deadline, or its code has no such handler): the panel shows the rest regardless.
 */
async function queryOrNull<Result>(
  temporal: Client,
  handle: WorkflowHandle,
  query: QueryDefinition<Result>,
): Promise<Result | null> {
  try {
    return await temporal.withDeadline(Date.now() + queryTimeoutMs, () => handle.query(query));
  } catch {
    return null;
  }
}

type PendingActivityInfo = NonNullable<
  Awaited<ReturnType<WorkflowHandle['describe']>>['raw']['pendingActivities']
>[number];

const isoOrNull = (date: Date | undefined) => date?.toISOString() ?? null;

/** A pending activity, and the failure of its previous attempt when it is being retried. */
function pendingActivityWire(pending: PendingActivityInfo): {
  wire: PendingActivityWire;
  failure: WorkflowFailure | null;
} {
  const activityType = pending.activityType?.name ?? 'unknown';
  const attempt = pending.attempt ?? 1;
  const lastFailure = pending.lastFailure ? failureMessage(pending.lastFailure) : null;
  return {
    wire: {
      activity_id: pending.activityId ?? '',
      activity_type: activityType,
      attempt,
      scheduled_time: isoOrNull(optionalTsToDate(pending.scheduledTime)),
      last_started_time: isoOrNull(optionalTsToDate(pending.lastStartedTime)),
      last_failure: lastFailure,
    },
    failure:
      lastFailure === null
        ? null
        : {
            event_id: null,
            time: isoOrNull(optionalTsToDate(pending.lastAttemptCompleteTime)),
            source: 'activity',
            activity_type: activityType,
            attempt: attempt - 1,
            message: lastFailure,
          },
  };
}

/** Visibility rows one list request reads at most, in pages of `visibilityPageSize`. */
export const maxScannedRows = 1000;
const visibilityPageSize = 250;

export interface WorkflowListing {
  matches: WorkflowSummaryWire[];
  /** The scan stopped at `maxScannedRows`: older workflows of the caller may be left out. */
  truncated: boolean;
}

/**
 * The caller's workflows of a kind, newest first. Visibility lists every organization's, so
 * each page of it is matched against the caller's entities in one query; at most
 * `maxScannedRows` rows are read per request.
 */
export async function listWorkflows(
  { em, temporal }: Pick<WorkflowServices, 'em' | 'temporal'>,
  organizationId: string,
  kind: WorkflowKind,
  statuses: WorkflowStatus[],
): Promise<WorkflowListing> {
  const definition = kindDefinitions[kind];
  const statusFilter = statuses.map(
    (status) => `ExecutionStatus = '${visibilityStatusNames[status]}'`,
  );
  const query =
    `WorkflowType = '${definition.workflowType}'` +
    (statusFilter.length ? ` AND (${statusFilter.join(' OR ')})` : '');
  const matches: WorkflowSummaryWire[] = [];
  let batch: WorkflowExecutionInfo[] = [];
  const matchBatch = async () => {
    const entities = await definition.entitiesOf(
      em,
      organizationId,
      batch.map((info) => info.workflowId),
    );
    for (const info of batch) {
      const entityId = entities.get(info.workflowId);
      if (entityId) matches.push(workflowSummaryWire(kind, entityId, info));
    }
    batch = [];
  };
  let scanned = 0;
  for await (const info of temporal.workflow.list({ query, pageSize: visibilityPageSize })) {
    batch.push(info);
    scanned += 1;
    if (batch.length === visibilityPageSize) await matchBatch();
    if (scanned === maxScannedRows) break;
  }
  if (batch.length) await matchBatch();
  return { matches, truncated: scanned === maxScannedRows };
}
