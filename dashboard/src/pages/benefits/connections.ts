/**
 * The benefit form's side of "Connect a Discord server" / "Connect GitHub". Connecting leaves
 * the dashboard for Discord or GitHub, which send the browser back to /benefits/new with what
 * the API needs to complete (see CompleteConnection). The form being filled in waits in this
 * tab's sessionStorage meanwhile, and the connection's result is handed back to it there.
 */
import { navigate } from '../../router';
import { connectionsApi, type DiscordGuild, type GitHubInstallation } from './api';
import { type BenefitFormValues, initialValues } from './form';

export type ConnectionProvider = 'discord' | 'github';

/** The form left for the consent page: its values, and the page it was on. */
interface WaitingForm {
  provider: ConnectionProvider;
  values: BenefitFormValues;
  returnTo: string;
}

/** What the form finds when it is back. */
export interface Connected {
  values: BenefitFormValues;
  guild?: DiscordGuild;
  installation?: GitHubInstallation;
}

const waitingKey = 'tollgate.benefit-connection.waiting';
const connectedKey = 'tollgate.benefit-connection.connected';

/** Keeps the form's values and sends the browser to Discord's or GitHub's page. */
export async function connect(provider: ConnectionProvider, values: BenefitFormValues) {
  const { url } = await connectionsApi.start(provider);
  const waiting: WaitingForm = { provider, values, returnTo: window.location.pathname };
  sessionStorage.setItem(waitingKey, JSON.stringify(waiting));
  window.location.assign(url);
}

/** The query Discord (`code`) or GitHub (`installation_id`) came back with, if this is one. */
export function connectionCallback(search: string) {
  const query = Object.fromEntries(new URLSearchParams(search));
  if (!query.state) return null;
  if (query.installation_id) return { provider: 'github' as const, query };
  if (query.code) return { provider: 'discord' as const, query };
  return null;
}

/** Completes the connection with the API, then goes back to the form that started it. */
export async function completeConnection(
  provider: ConnectionProvider,
  query: Record<string, string>,
) {
  const stored = sessionStorage.getItem(waitingKey);
  const waiting = stored ? (JSON.parse(stored) as WaitingForm) : null;
  const result =
    provider === 'discord'
      ? { guild: await connectionsApi.completeDiscord(query) }
      : { installation: await connectionsApi.completeGitHub(query) };
  sessionStorage.removeItem(waitingKey);
  const values = waiting?.provider === provider ? waiting.values : null;
  const connected: Connected = { values: withConnection(values, result), ...result };
  sessionStorage.setItem(connectedKey, JSON.stringify(connected));
  navigate(waiting?.returnTo ?? '/benefits/new', { replace: true });
}

/** The connection handed back to the form, once (a reload starts from the benefit again). */
export function takeConnected(): Connected | null {
  const stored = sessionStorage.getItem(connectedKey);
  sessionStorage.removeItem(connectedKey);
  return stored ? (JSON.parse(stored) as Connected) : null;
}

/** The form's values with the connected guild's token and first role, or first repository. */
function withConnection(
  values: BenefitFormValues | null,
  { guild, installation }: { guild?: DiscordGuild; installation?: GitHubInstallation },
): BenefitFormValues {
  const base = values ?? initialValues();
  if (guild) {
    return {
      ...base,
      type: 'discord',
      properties: {
        ...base.properties,
        guild_token: guild.guild_token,
        role_id: guild.roles[0]?.id ?? '',
      },
    };
  }
  const first = installation?.repositories[0];
  return {
    ...base,
    type: 'github_repository',
    properties: {
      ...base.properties,
      repository_owner: first?.repository_owner ?? '',
      repository_name: first?.repository_name ?? '',
    },
  };
}
