import Router from '@koa/router';
import type { Context } from 'koa';
import { authSettings } from '../../accounts/settings.ts';
import { cookieNames, readCookie } from '../../api/auth/cookies.ts';
import type { AppDependencies } from '../../api/dependencies.ts';
import { parseBody } from '../../api/validation.ts';
import { hashToken } from '../../domain/token-hashes.ts';
import { notPermitted } from '../errors.ts';
import { callerOf, scope } from '../http/caller.ts';
import {
  connectionStartWire,
  discordCallbackInput,
  discordGuildWire,
  discordRolesInput,
  githubCallbackInput,
  githubInstallationWire,
} from './schemas.ts';
import {
  type ConnectingSeller,
  type ConnectionSettings,
  completeDiscordConnection,
  completeGitHubConnection,
  connectedGuildRoles,
  startDiscordConnection,
  startGitHubConnection,
} from './service.ts';

/**
 * /v1/benefit-connections (Tollgate's own): the dashboard's "Connect a Discord server" and
 * "Connect GitHub" for discord and github_repository benefits. Each flow starts with a POST
 * answering where to send the browser, and ends with the dashboard forwarding what Discord or
 * GitHub sent back. Only a signed-in member who may write benefits connects, and only in the
 * session that started the flow. Guild tokens travel in bodies, never in URLs.
 */
export function benefitConnectionRoutes({ config }: AppDependencies): Router {
  const settings = authSettings(config);
  const connection: ConnectionSettings = {
    secret: settings.secret,
    integrations: config.benefitIntegrations,
    // The dashboard's new-benefit page completes both flows.
    redirectUri: new URL('benefits/new', `${config.api.publicUrl.replace(/\/$/, '')}/`).href,
  };
  const router = new Router({ prefix: '/v1/benefit-connections' });

  /** The signed-in member and the session it acts in; tokens cannot connect (no browser). */
  const sellerOf = (ctx: Context): ConnectingSeller => {
    const caller = callerOf(ctx);
    const cookie = readCookie(ctx, cookieNames(settings).sessionToken);
    if (caller.kind !== 'member' || !cookie) {
      throw notPermitted('Services are connected from a signed-in dashboard session.');
    }
    return {
      organizationId: caller.organizationId,
      userId: caller.userId,
      sessionHash: hashToken(cookie),
    };
  };

  router.post('/discord', scope('benefits:write'), (ctx) => {
    ctx.body = connectionStartWire(startDiscordConnection(connection, sellerOf(ctx)));
  });

  router.post('/discord/callback', scope('benefits:write'), async (ctx) => {
    const seller = sellerOf(ctx);
    const input = parseBody(ctx, discordCallbackInput);
    ctx.body = discordGuildWire(await completeDiscordConnection(connection, seller, input));
  });

  // A POST, though it changes nothing: the guild token stays out of URLs and logs.
  router.post('/discord/roles', scope('benefits:write'), async (ctx) => {
    const { organizationId } = sellerOf(ctx);
    const { guild_token } = parseBody(ctx, discordRolesInput);
    ctx.body = discordGuildWire(await connectedGuildRoles(connection, organizationId, guild_token));
  });

  router.post('/github', scope('benefits:write'), (ctx) => {
    ctx.body = connectionStartWire(startGitHubConnection(connection, sellerOf(ctx)));
  });

  router.post('/github/callback', scope('benefits:write'), async (ctx) => {
    const seller = sellerOf(ctx);
    const input = parseBody(ctx, githubCallbackInput);
    const repositories = await completeGitHubConnection(connection, seller, input);
    ctx.body = githubInstallationWire(input.installation_id, repositories);
  });

  return router;
}
