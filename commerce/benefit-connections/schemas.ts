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
export const connectionStartWire = (url: string) => ({ url });

/** A connected guild: the token a discord benefit takes, and the roles it may give. */
export function discordGuildWire(guild: {
  guildToken: string;
  guildId: string;
  guildName: string | null;
  roles: GuildRole[];
}) {
  return {
    guild_token: guild.guildToken,
    guild_id: guild.guildId,
    guild_name: guild.guildName,
    roles: guild.roles.map((role) => ({ id: role.id, name: role.name })),
  };
}
export type DiscordGuildWire = ReturnType<typeof discordGuildWire>;

/** A connected installation: the repositories a github_repository benefit may name. */
export function githubInstallationWire(
  installationId: string,
  repositories: InstallationRepository[],
) {
  return {
    installation_id: installationId,
    repositories: repositories.map((repository) => ({
      repository_owner: repository.owner,
      repository_name: repository.name,
    })),
  };
}
export type GitHubInstallationWire = ReturnType<typeof githubInstallationWire>;
