import { z } from 'zod';
import type { GuildRole } from '../../integrations/discord/discord-api.ts';
import type { InstallationRepository } from '../../integrations/github/github-app.ts';

/** Where the browser came back from Discord's consent page: its query, forwarded by the dashboard. */
export const discordCallbackInput = z.object({
  state: z.string().min(1),
  code: z.string().min(1),
  guild_id: z.string().regex(/^\d+$/).optional(),
  permissions: z.string().optional(),
});
export type DiscordCallbackInput = z.infer<typeof discordCallbackInput>;

export const discordRolesInput = z.object({ guild_token: z.string().min(1) });

/** Where the browser came back from the GitHub App's installation page. */
export const githubCallbackInput = z.object({
  state: z.string().min(1),
  installation_id: z.string().regex(/^\d+$/, 'An installation id is a number.'),
  setup_action: z.string().optional(),
});
export type GitHubCallbackInput = z.infer<typeof githubCallbackInput>;

/** Where to send the browser to connect (Discord's consent page, the app's installation page). */
export const connectionStartWireSchema = z.object({ url: z.string() });
export const connectionStartWire = (url: string): z.input<typeof connectionStartWireSchema> => ({
  url,
});

/** A connected Discord guild and the roles a discord benefit may give. */
export const discordGuildWireSchema = z
  .object({
    guild_token: z.string(),
    guild_id: z.string(),
    guild_name: z.string().nullable(),
    roles: z.array(z.object({ id: z.string(), name: z.string() })),
  })
  .meta({ id: 'DiscordGuild' });
export type DiscordGuildWire = z.input<typeof discordGuildWireSchema>;

/** A connected GitHub App installation and the repositories it reaches. */
export const githubInstallationWireSchema = z
  .object({
    installation_id: z.string(),
    repositories: z.array(z.object({ repository_owner: z.string(), repository_name: z.string() })),
  })
  .meta({ id: 'GitHubInstallation' });
export type GitHubInstallationWire = z.input<typeof githubInstallationWireSchema>;

/** A connected guild: the token a discord benefit takes, and the roles it may give. */
export function discordGuildWire(guild: {
  guildToken: string;
  guildId: string;
  guildName: string | null;
  roles: GuildRole[];
}): DiscordGuildWire {
  return {
    guild_token: guild.guildToken,
    guild_id: guild.guildId,
    guild_name: guild.guildName,
    roles: guild.roles.map((role) => ({ id: role.id, name: role.name })),
  };
}

/** A connected installation: the repositories a github_repository benefit may name. */
export function githubInstallationWire(
  installationId: string,
  repositories: InstallationRepository[],
): GitHubInstallationWire {
  return {
    installation_id: installationId,
    repositories: repositories.map((repository) => ({
      repository_owner: repository.owner,
      repository_name: repository.name,
    })),
  };
}
