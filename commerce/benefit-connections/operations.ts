import type { Operation } from '../http/openapi.ts';
import {
  connectionStartWireSchema,
  discordCallbackInput,
  discordGuildWireSchema,
  discordRolesInput,
  githubCallbackInput,
  githubInstallationWireSchema,
} from './schemas.ts';

const tag = 'Benefit connections';

/**
 * The operations of benefitConnectionRoutes (/v1/benefit-connections, Tollgate's own): only a
 * signed-in member who may write benefits connects, in the dashboard session that started the
 * flow; access tokens are refused (403).
 */
export const benefitConnectionOperations: Operation[] = [
  {
    method: 'post',
    path: '/v1/benefit-connections/discord',
    operationId: 'benefit_connections:discord:start',
    summary: 'Start connecting a Discord server: where to send the browser',
    tag,
    auth: 'session',
    scopes: ['benefits:write'],
    response: { status: 200, schema: connectionStartWireSchema },
  },
  {
    method: 'post',
    path: '/v1/benefit-connections/discord/callback',
    operationId: 'benefit_connections:discord:callback',
    summary: 'Finish connecting a Discord server with what Discord sent back',
    tag,
    auth: 'session',
    scopes: ['benefits:write'],
    body: discordCallbackInput,
    response: { status: 200, schema: discordGuildWireSchema },
  },
  {
    method: 'post',
    path: '/v1/benefit-connections/discord/roles',
    operationId: 'benefit_connections:discord:roles',
    summary: 'Read the roles of a connected Discord server (the guild token in the body)',
    tag,
    auth: 'session',
    scopes: ['benefits:write'],
    body: discordRolesInput,
    response: { status: 200, schema: discordGuildWireSchema },
  },
  {
    method: 'post',
    path: '/v1/benefit-connections/github',
    operationId: 'benefit_connections:github:start',
    summary: 'Start connecting the GitHub App: where to send the browser',
    tag,
    auth: 'session',
    scopes: ['benefits:write'],
    response: { status: 200, schema: connectionStartWireSchema },
  },
  {
    method: 'post',
    path: '/v1/benefit-connections/github/callback',
    operationId: 'benefit_connections:github:callback',
    summary: 'Finish connecting the GitHub App with the installation GitHub sent back',
    tag,
    auth: 'session',
    scopes: ['benefits:write'],
    body: githubCallbackInput,
    response: { status: 200, schema: githubInstallationWireSchema },
  },
];
