import type { BenefitIntegrationsConfig } from '../../config/env.ts';
import { callIntegration, IntegrationError, integrationFailure } from '../integration-errors.ts';

/**
 * What the bot may do in a guild it is installed in: Create Instant Invite (1) and Kick Members
 * (2) for adding and removing members, Manage Roles (1 << 28) for giving and taking roles.
 */
export const botPermissions = String(1 | 2 | (1 << 28));

type DiscordSettings = BenefitIntegrationsConfig['discord'];
type DiscordClient = NonNullable<DiscordSettings['client']>;

/** Discord's web host (the consent page), from its API base URL (`https://discord.com/api/v10`). */
const webOrigin = (settings: DiscordSettings) => new URL(settings.apiBaseUrl).origin;

/**
 * Discord's consent page installing the bot (OAuth2 `bot` scope) in a guild the seller picks,
 * then sending the browser to `redirectUri` with `code`, `state` and `guild_id`.
 */
export function botInstallUrl(
  settings: DiscordSettings,
  client: DiscordClient,
  redirectUri: string,
  state: string,
): string {
  const url = new URL('/oauth2/authorize', webOrigin(settings));
  url.search = new URLSearchParams({
    client_id: client.id,
    scope: 'bot',
    permissions: botPermissions,
    response_type: 'code',
    redirect_uri: redirectUri,
    state,
  }).toString();
  return url.href;
}

export interface InstalledGuild {
  id: string;
  name: string;
}

/**
 * Exchanges the install's `code` at Discord's token endpoint: the answer names the guild the bot
 * joined (the callback's own `guild_id` is the browser's word, this is Discord's).
 */
export async function exchangeBotInstallCode(
  settings: DiscordSettings,
  client: DiscordClient,
  code: string,
  redirectUri: string,
): Promise<InstalledGuild> {
  const base = settings.apiBaseUrl.replace(/\/+$/, '');
  const response = await callIntegration('Discord', `${base}/oauth2/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
    }).toString(),
  });
  if (!response.ok) throw await integrationFailure('Discord', 'Installing the bot', response);
  const token = (await response.json()) as { guild?: { id?: unknown; name?: unknown } };
  const { id, name } = token.guild ?? {};
  if (typeof id !== 'string') {
    throw new IntegrationError('Discord', 'Installing the bot failed: no guild in the answer.');
  }
  return { id, name: typeof name === 'string' ? name : id };
}
