import { kindDefinitions } from '../../processes/workflow-insight.ts';
import type { Operation } from '../http/openapi.ts';
import { workflowListParameters } from './routes.ts';
import {
  workflowInsightWireSchema,
  workflowKindParams,
  workflowListWireSchema,
} from './schemas.ts';

// Any kind's read scope lists its kind's workflows.
const kindScopes = [...new Set(Object.values(kindDefinitions).map((kind) => kind.scope))];

/**
 * The operations of workflowRoutes (/v1/workflows, Tollgate's own): reading a workflow takes the
 * read scope of the entity it serves (`subscriptions:read` for a subscription's, …).
 */
export const workflowOperations: Operation[] = [
  {
    method: 'get',
    path: '/v1/workflows',
    operationId: 'workflows:list',
    summary: 'List the workflows of one kind of entity (`status` filters, repeatable)',
    tag: 'Workflows',
    scopes: kindScopes,
    query: workflowListParameters.schema,
    response: { status: 200, schema: workflowListWireSchema },
  },
  {
    method: 'get',
    path: '/v1/workflows/:kind/:entityId',
    operationId: 'workflows:get',
    summary: 'What the workflow of an entity is doing, waits for, did and failed at',
    tag: 'Workflows',
    scopes: kindScopes,
    params: workflowKindParams,
    response: { status: 200, schema: workflowInsightWireSchema },
    errors: [404],
  },
];
