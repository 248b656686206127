import type { BenefitIntegrationsConfig } from '../../config/env.ts';
import { callIntegration, IntegrationError, integrationFailure } from '../integration-errors.ts';

/** A role the bot can give: neither `@everyone` nor one an integration manages. */
export interface GuildRole {
  id: string;
  name: string;
}

export interface DiscordRoleGrant {
  guildId: string;
  roleId: string;
  userId: string;
  /** The user's OAuth token (guilds.join): lets the bot add a user not yet in the guild. */
  userAccessToken: string | null;
}

/**
 * Discord's guild member API, as the bot (`Authorization: Bot <token>`). Every call is
 * idempotent: PUT of a present member or role and DELETE of an absent one change nothing.
 */
export function discordApi(config: BenefitIntegrationsConfig['discord']) {
  const base = config.apiBaseUrl.replace(/\/+$/, '');
  async function call(method: string, path: string, action: string, body?: unknown) {
    if (!config.botToken) {
      throw new IntegrationError('Discord', 'No Discord bot token is configured.');
    }
    const response = await callIntegration('Discord', `${base}${path}`, {
      method,
      headers: {
        authorization: `Bot ${config.botToken}`,
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    // Removing what is already gone (an unknown member) is the wanted outcome.
    if (response.ok || (method === 'DELETE' && response.status === 404)) return response;
    throw await integrationFailure('Discord', action, response);
  }
  const member = (guildId: string, userId: string) =>
    `/guilds/${encodeURIComponent(guildId)}/members/${encodeURIComponent(userId)}`;

  return {
    /** The guild's roles a benefit can give, highest first (as Discord's role list shows). */
    async guildRoles(guildId: string): Promise<GuildRole[]> {
      const response = await call(
        'GET',
        `/guilds/${encodeURIComponent(guildId)}/roles`,
        'Listing the roles',
      );
      const roles = (await response.json()) as {
        id: string;
        name: string;
        position: number;
        managed: boolean;
      }[];
      return roles
        .filter((role) => role.id !== guildId && !role.managed)
        .sort((a, b) => b.position - a.position)
        .map(({ id, name }) => ({ id, name }));
    },

    /** Adds the user to the guild with the role (with their token), or the role to the member. */
    async grantRole({ guildId, roleId, userId, userAccessToken }: DiscordRoleGrant) {
      if (userAccessToken) {
        await call('PUT', member(guildId, userId), 'Adding the guild member', {
          access_token: userAccessToken,
          roles: [roleId],
        });
      }
      await call(
        'PUT',
        `${member(guildId, userId)}/roles/${encodeURIComponent(roleId)}`,
        'Adding the role',
      );
    },

    /** Takes the role away, or the user out of the guild when the benefit kicks members. */
    async revokeRole({ guildId, roleId, userId }: DiscordRoleGrant, kickMember: boolean) {
      if (kickMember) {
        await call('DELETE', member(guildId, userId), 'Removing the guild member');
        return;
      }
      await call(
        'DELETE',
        `${member(guildId, userId)}/roles/${encodeURIComponent(roleId)}`,
        'Removing the role',
      );
    },
  };
}
