/**
 * The seller's connect flows behind discord and github_repository benefits. "Connect a Discord
 * server" installs the bot through Discord's OAuth2 (`bot` scope) and answers a guild token
 * signed for the organization (domain/benefit-properties.ts), with the guild's roles;
 * "Connect GitHub" installs the GitHub App and answers the repositories the installation
 * reaches. Nothing is stored: the `state` that goes out is signed and bound to the seller's
 * organization, user and session, and only that session may complete the flow.
 */
import type { BenefitIntegrationsConfig } from '../../config/env.ts';
import { invalidField } from '../../core/errors.ts';
import { discordGuildIdOf, issueDiscordGuildToken } from '../../domain/benefit-properties.ts';
import { readSignedToken, signToken } from '../../domain/signed-tokens.ts';
import { botInstallUrl, exchangeBotInstallCode } from '../../integrations/discord/bot-install.ts';
import { discordApi } from '../../integrations/discord/discord-api.ts';
import { appInstallUrl, installationRepositories } from '../../integrations/github/github-app.ts';
import { IntegrationError } from '../../integrations/integration-errors.ts';
import { commerceError } from '../errors.ts';
import type { DiscordCallbackInput, GitHubCallbackInput } from './schemas.ts';

export type ConnectionProvider = 'discord' | 'github';

/** Who connects: the organization, and the signed-in member's user and session (its hash). */
export interface ConnectingSeller {
  organizationId: string;
  userId: string;
  sessionHash: string;
}

/** What the flows need of the server: its secret, the integrations, the dashboard's return URL. */
export interface ConnectionSettings {
  secret: string;
  integrations: BenefitIntegrationsConfig;
  /** Where Discord sends the browser back (the GitHub App's setup URL is the same page). */
  redirectUri: string;
}

/** How long a seller has to come back from the consent or installation page. */
const stateLifetimeMs = 15 * 60 * 1000;
const statePurpose = 'tollgate benefit connection';

interface ConnectionState extends ConnectingSeller {
  provider: ConnectionProvider;
  /** Epoch milliseconds. */
  expiresAt: number;
}

function issueState(secret: string, provider: ConnectionProvider, seller: ConnectingSeller) {
  const state: ConnectionState = { ...seller, provider, expiresAt: Date.now() + stateLifetimeMs };
  return signToken(secret, statePurpose, state);
}

/**
 * Refuses a state that is forged, expired, for the other provider, or issued to another
 * organization, user or session (a link planted in someone else's browser does nothing).
 */
function checkState(
  secret: string,
  provider: ConnectionProvider,
  seller: ConnectingSeller,
  token: string,
) {
  const state = readSignedToken(secret, statePurpose, token) as ConnectionState | null;
  const valid =
    state !== null &&
    state.provider === provider &&
    state.expiresAt > Date.now() &&
    state.organizationId === seller.organizationId &&
    state.userId === seller.userId &&
    state.sessionHash === seller.sessionHash;
  if (!valid) {
    throw invalidField(['body', 'state'], 'The connection is invalid or has expired; start again.');
  }
}

/** A refusal of Discord or GitHub answers 422 IntegrationRefused; an outage stays a failure. */
async function refusedAs<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof IntegrationError && error.status && error.status < 500) {
      throw commerceError('IntegrationRefused', error.message);
    }
    throw error;
  }
}

function discordClient(settings: ConnectionSettings) {
  const { client, botToken } = settings.integrations.discord;
  if (!client || !botToken) {
    throw commerceError('IntegrationNotConfigured', 'Connecting Discord servers is not set up.');
  }
  return client;
}

function githubApp(settings: ConnectionSettings) {
  const { app } = settings.integrations.github;
  if (!app) throw commerceError('IntegrationNotConfigured', 'Connecting GitHub is not set up.');
  return app;
}

/** Discord's consent page installing the bot, coming back to the dashboard with the state. */
export function startDiscordConnection(settings: ConnectionSettings, seller: ConnectingSeller) {
  const client = discordClient(settings);
  const state = issueState(settings.secret, 'discord', seller);
  return botInstallUrl(settings.integrations.discord, client, settings.redirectUri, state);
}

/**
 * Completes the bot install: the code is exchanged for the guild the bot joined (Discord's
 * answer, not the browser's `guild_id`), and answers its guild token and roles.
 */
export async function completeDiscordConnection(
  settings: ConnectionSettings,
  seller: ConnectingSeller,
  input: DiscordCallbackInput,
) {
  const client = discordClient(settings);
  checkState(settings.secret, 'discord', seller, input.state);
  const discord = settings.integrations.discord;
  const guild = await refusedAs(() =>
    exchangeBotInstallCode(discord, client, input.code, settings.redirectUri),
  );
  const roles = await refusedAs(() => discordApi(discord).guildRoles(guild.id));
  return {
    guildToken: issueDiscordGuildToken(settings.secret, seller.organizationId, guild.id),
    guildId: guild.id,
    guildName: guild.name,
    roles,
  };
}

/** The roles of a guild the organization connected (its guild token), for editing a benefit. */
export async function connectedGuildRoles(
  settings: ConnectionSettings,
  organizationId: string,
  guildToken: string,
) {
  discordClient(settings);
  const guildId = discordGuildIdOf(settings.secret, organizationId, guildToken);
  if (!guildId) throw invalidField(['body', 'guild_token'], 'Invalid guild token.');
  const roles = await refusedAs(() =>
    discordApi(settings.integrations.discord).guildRoles(guildId),
  );
  return { guildToken, guildId, guildName: null, roles };
}

/** The GitHub App's installation page, coming back to the dashboard with the state. */
export function startGitHubConnection(settings: ConnectionSettings, seller: ConnectingSeller) {
  return appInstallUrl(githubApp(settings), issueState(settings.secret, 'github', seller));
}

/** Completes the installation: the repositories it reaches, read with an installation token. */
export async function completeGitHubConnection(
  settings: ConnectionSettings,
  seller: ConnectingSeller,
  input: GitHubCallbackInput,
) {
  const app = githubApp(settings);
  checkState(settings.secret, 'github', seller, input.state);
  return refusedAs(() =>
    installationRepositories(settings.integrations.github, app, input.installation_id),
  );
}
