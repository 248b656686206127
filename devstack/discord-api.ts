import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { type HttpFake, startHttpFake } from './http-fake.ts';

/**
 * A stand-in for Discord's HTTP API (v10) with the guild member endpoints discord grants use:
 * adding a member with the user's OAuth token, adding and removing a role, kicking; and the bot
 * install of the seller's connect flow: the OAuth2 consent page (`/oauth2/authorize` with the
 * `bot` scope, which consents at once for the guild last added and redirects back with `code`,
 * `state`, `guild_id` and `permissions`), the code exchange (`POST /api/v10/oauth2/token`, a form
 * with the application's client id and secret, answering the token with its `guild`) and the
 * guild's roles. Bot token auth (`Authorization: Bot <token>`); errors in Discord's
 * `{message, code}` shape, OAuth2 ones as `{error, error_description}`.
 */
export interface DiscordApiFake extends HttpFake {
  botToken: string;
  /** The application's OAuth2 client, as the connect flow is configured with. */
  clientId: string;
  clientSecret: string;
  /** A guild with its roles (`@everyone`, id the guild's, comes first as Discord lists it). */
  addGuild(guild: FakeGuild): void;
  /** A user who joined the guild by themselves (roles can then be given without their token). */
  addMember(guildId: string, userId: string): void;
  /** The member's roles, or null when the user is not in the guild. */
  rolesOf(guildId: string, userId: string): string[] | null;
}

export interface FakeGuild {
  id: string;
  name: string;
  roles: { id: string; name: string; managed?: boolean }[];
}

const unknownMember = { status: 404, body: { message: 'Unknown Member', code: 10007 } };
const unknownGuild = { status: 404, body: { message: 'Unknown Guild', code: 10004 } };
const api = '/api/v10';
const oauthError = (error: string, description: string) => ({
  status: 400,
  body: { error, error_description: description },
});

/** The client id and secret of a token request: HTTP Basic, or the form's fields. */
function clientOf(request: IncomingMessage, body: Record<string, unknown>) {
  const basic = /^Basic\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
  if (basic) {
    const [id = '', secret = ''] = Buffer.from(basic, 'base64').toString('utf8').split(':');
    return { id: decodeURIComponent(id), secret: decodeURIComponent(secret) };
  }
  return { id: String(body.client_id ?? ''), secret: String(body.client_secret ?? '') };
}

export async function startDiscordApiFake(): Promise<DiscordApiFake> {
  const botToken = `fake-bot-${randomUUID()}`;
  const clientId = String(100_000_000_000_000_000n + BigInt(Math.floor(Math.random() * 1e9)));
  const clientSecret = `fake-secret-${randomUUID()}`;
  /** Guilds that exist, and the one the next consent picks. */
  const known = new Map<string, FakeGuild>();
  let lastGuild: FakeGuild | null = null;
  /** Guilds the bot was installed in. */
  const installed = new Set<string>();
  /** Codes of consents not yet exchanged: code → what it grants. */
  const codes = new Map<string, { guild: FakeGuild; redirectUri: string; permissions: string }>();
  /** guild id → user id → roles */
  const guilds = new Map<string, Map<string, Set<string>>>();
  const guild = (id: string) => {
    let members = guilds.get(id);
    if (!members) {
      members = new Map();
      guilds.set(id, members);
    }
    return members;
  };
  /** The consent page and the code exchange take no bot token: the OAuth2 client is checked. */
  const publicPaths = ['/oauth2/authorize', `${api}/oauth2/token`];
  const fake = await startHttpFake({
    basePath: '',
    notFound: { message: '404: Not Found', code: 0 },
    authorize: (request) =>
      publicPaths.includes(new URL(request.url ?? '/', 'http://fake').pathname) ||
      request.headers.authorization === `Bot ${botToken}`
        ? null
        : { status: 401, body: { message: '401: Unauthorized', code: 0 } },
    routes: [
      {
        method: 'GET',
        path: '/oauth2/authorize',
        handle: (_params, _body, request) => {
          const query = new URL(request.url ?? '/', 'http://fake').searchParams;
          const redirectUri = query.get('redirect_uri');
          const scopes = (query.get('scope') ?? '').split(/[ +]/);
          if (query.get('client_id') !== clientId || !redirectUri) {
            return { status: 400, body: { message: 'Invalid OAuth2 redirect_uri', code: 50035 } };
          }
          if (!scopes.includes('bot') || !lastGuild) {
            return { status: 400, body: { message: 'Invalid scope', code: 50035 } };
          }
          const code = randomUUID().replaceAll('-', '');
          const permissions = query.get('permissions') ?? '0';
          codes.set(code, { guild: lastGuild, redirectUri, permissions });
          const back = new URL(redirectUri);
          back.searchParams.set('code', code);
          back.searchParams.set('state', query.get('state') ?? '');
          back.searchParams.set('guild_id', lastGuild.id);
          back.searchParams.set('permissions', permissions);
          return { status: 302, headers: { location: back.href } };
        },
      },
      {
        method: 'POST',
        path: `${api}/oauth2/token`,
        handle: (_params, body, request) => {
          const client = clientOf(request, body);
          if (client.id !== clientId || client.secret !== clientSecret) {
            return { status: 401, body: { error: 'invalid_client' } };
          }
          if (body.grant_type !== 'authorization_code') {
            return oauthError('unsupported_grant_type', 'Unsupported grant type');
          }
          const consent = codes.get(String(body.code ?? ''));
          if (!consent || consent.redirectUri !== body.redirect_uri) {
            return oauthError('invalid_grant', 'Invalid "code" in request.');
          }
          codes.delete(String(body.code));
          installed.add(consent.guild.id);
          return {
            status: 200,
            body: {
              token_type: 'Bearer',
              access_token: randomUUID(),
              expires_in: 604_800,
              refresh_token: randomUUID(),
              scope: 'bot',
              guild: { id: consent.guild.id, name: consent.guild.name, icon: null },
            },
          };
        },
      },
      {
        method: 'GET',
        path: `${api}/guilds/:guild/roles`,
        handle: ({ guild: guildId = '' }) => {
          const found = known.get(guildId);
          if (!found || !installed.has(guildId)) return unknownGuild;
          return {
            status: 200,
            body: found.roles.map((role, position) => ({
              id: role.id,
              name: role.name,
              color: 0,
              hoist: false,
              position,
              permissions: '0',
              managed: role.managed ?? false,
              mentionable: false,
            })),
          };
        },
      },
      {
        method: 'PUT',
        path: `${api}/guilds/:guild/members/:user`,
        handle: ({ guild: guildId = '', user = '' }, body) => {
          const members = guild(guildId);
          if (members.has(user)) return { status: 204 };
          if (typeof body.access_token !== 'string') {
            return {
              status: 400,
              body: { message: 'Invalid Form Body', code: 50035, errors: { access_token: {} } },
            };
          }
          const roles = new Set(Array.isArray(body.roles) ? body.roles.map(String) : []);
          members.set(user, roles);
          return { status: 201, body: { user: { id: user }, roles: [...roles], nick: null } };
        },
      },
      {
        method: 'DELETE',
        path: `${api}/guilds/:guild/members/:user`,
        handle: ({ guild: guildId = '', user = '' }) =>
          guild(guildId).delete(user) ? { status: 204 } : unknownMember,
      },
      {
        method: 'PUT',
        path: `${api}/guilds/:guild/members/:user/roles/:role`,
        handle: ({ guild: guildId = '', user = '', role = '' }) => {
          const roles = guild(guildId).get(user);
          if (!roles) return unknownMember;
          roles.add(role);
          return { status: 204 };
        },
      },
      {
        method: 'DELETE',
        path: `${api}/guilds/:guild/members/:user/roles/:role`,
        handle: ({ guild: guildId = '', user = '', role = '' }) => {
          const roles = guild(guildId).get(user);
          if (!roles) return unknownMember;
          roles.delete(role);
          return { status: 204 };
        },
      },
    ],
  });
  return {
    ...fake,
    baseUrl: `${fake.baseUrl}${api}`,
    botToken,
    clientId,
    clientSecret,
    addGuild: (guild) => {
      known.set(guild.id, guild);
      lastGuild = guild;
    },
    addMember: (guildId, userId) => {
      guild(guildId).set(userId, new Set());
    },
    rolesOf: (guildId, userId) => {
      const roles = guild(guildId).get(userId);
      return roles ? [...roles].sort() : null;
    },
  };
}
