import { randomUUID } from 'node:crypto';
import { type HttpFake, startHttpFake } from './http-fake.ts';

/**
 * A stand-in for Discord's HTTP API (v10) with the guild member endpoints discord grants use:
 * adding a member with the user's OAuth token, adding and removing a role, kicking. Bot token
 * auth (`Authorization: Bot <token>`); errors in Discord's `{message, code}` shape.
 */
export interface DiscordApiFake extends HttpFake {
  botToken: string;
  /** A user who joined the guild by themselves (roles can then be given without their token). */
  addMember(guildId: string, userId: string): void;
  /** The member's roles, or null when the user is not in the guild. */
  rolesOf(guildId: string, userId: string): string[] | null;
}

const unknownMember = { status: 404, body: { message: 'Unknown Member', code: 10007 } };

export async function startDiscordApiFake(): Promise<DiscordApiFake> {
  const botToken = `fake-bot-${randomUUID()}`;
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
  const fake = await startHttpFake({
    basePath: '/api/v10',
    notFound: { message: '404: Not Found', code: 0 },
    authorize: (request) =>
      request.headers.authorization === `Bot ${botToken}`
        ? null
        : { status: 401, body: { message: '401: Unauthorized', code: 0 } },
    routes: [
      {
        method: 'PUT',
        path: '/guilds/:guild/members/:user',
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
        path: '/guilds/:guild/members/:user',
        handle: ({ guild: guildId = '', user = '' }) =>
          guild(guildId).delete(user) ? { status: 204 } : unknownMember,
      },
      {
        method: 'PUT',
        path: '/guilds/:guild/members/:user/roles/:role',
        handle: ({ guild: guildId = '', user = '', role = '' }) => {
          const roles = guild(guildId).get(user);
          if (!roles) return unknownMember;
          roles.add(role);
          return { status: 204 };
        },
      },
      {
        method: 'DELETE',
        path: '/guilds/:guild/members/:user/roles/:role',
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
    botToken,
    addMember: (guildId, userId) => {
      guild(guildId).set(userId, new Set());
    },
    rolesOf: (guildId, userId) => {
      const roles = guild(guildId).get(userId);
      return roles ? [...roles].sort() : null;
    },
  };
}
