import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { codeFromMessage } from '../../../accounts/errors.ts';
import { organizationMessages } from '../../../accounts/organization/errors.ts';
import { addMember } from '../../../accounts/organization/members.ts';
import { authSettings } from '../../../accounts/settings.ts';
import { loadRuntimeConfig } from '../../../config/env.ts';
import { Session } from '../../../db/entities/index.ts';
import { startApiServer } from '../../server.ts';
import { authRouteTable, browserAuthClient } from '../testing.ts';
import {
  type AttackRequest,
  type Fixtures,
  organizationRouteCases,
  type Refusal,
} from './adversarial-routes.ts';

/**
 * The adversarial suite of the organization routes of /api/auth, from the route table and
 * `organizationRouteCases`: the owner of organization B (a stranger to A) and a plain member of
 * A try each route against A's objects. Each is refused with Better Auth's status and
 * `{code, message}`, or (routes answering the caller's own data) answered without any of A's;
 * no answer holds A's ids or emails beyond what the request sent, and none of A's rows (nor the
 * attackers' memberships) change.
 */

type Api = Awaited<ReturnType<typeof startApiServer>>;
type Browser = ReturnType<typeof browserAuthClient>;

const password = 'correct horse battery';
const uniqueTag = () => randomBytes(5).toString('hex');
const prefix = '/api/auth/organization/';

/** `METHOD /path` of every /api/auth/organization route, as @koa/router holds it. */
const organizationRouteTable = (api: Api): Set<string> =>
  new Set(authRouteTable(api).filter((route) => route.split(' ')[1]?.startsWith(prefix)));

/** Every id, email and name of A's objects, named by where it sits in the fixtures. */
function markersOf(value: unknown, name: string): [string, string][] {
  if (typeof value === 'string') return [[name, value]];
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, inner]) => markersOf(inner, `${name}.${key}`));
  }
  return [];
}

/**
 * A's rows in organizations, members, invitations, teams and team_members, and the attackers'
 * own memberships (of organizations and teams), as JSON text in a stable order.
 */
async function victimRows(api: Api, { victim, attacker }: Fixtures): Promise<string[]> {
  const users = [attacker.owner.userId, attacker.memberOfVictim.userId];
  const rows = await api.orm.em.fork().execute<{ row: string }[]>(
    `select 'organizations ' || to_jsonb(o)::text as row from organizations o where o.id = ?
     union all
     select 'members ' || to_jsonb(m)::text from members m
       where m.organization_id = ? or m.user_id in (?, ?)
     union all
     select 'invitations ' || to_jsonb(i)::text from invitations i where i.organization_id = ?
     union all
     select 'teams ' || to_jsonb(t)::text from teams t where t.organization_id = ?
     union all
     select 'team_members ' || to_jsonb(tm)::text from team_members tm
       where tm.team_id in (select id from teams where organization_id = ?)
          or tm.user_id in (?, ?)
     order by row`,
    [
      victim.organizationId,
      victim.organizationId,
      ...users,
      victim.organizationId,
      victim.organizationId,
      victim.organizationId,
      ...users,
    ],
  );
  return rows.map(({ row }) => row);
}

describe('adversarial suite: every /api/auth/organization route', () => {
  let api: Api;
  let routes: Set<string>;
  let fixtures: Fixtures;
  /** B's owner, and the plain member of A. */
  let stranger: Browser & { userId: string; email: string };
  let member: Browser & { userId: string; email: string };
  let markers: [string, string][];

  async function signedInUser(name: string) {
    const origin = new URL(api.config.api.publicUrl).origin;
    const browser = browserAuthClient(api.url, origin);
    const email = `adversary-${uniqueTag()}@example.com`;
    const { data, error } = await browser.client.signUp.email({ email, password, name });
    assert.equal(error, null);
    return { ...browser, userId: data?.user.id ?? '', email };
  }

  async function createOrganization(owner: Browser) {
    const { data, error } = await owner.client.organization.create({
      name: `Org ${uniqueTag()}`,
      slug: `org-${uniqueTag()}`,
    });
    assert.equal(error, null);
    const created = data as NonNullable<typeof data>;
    const session = await api.orm.em
      .fork()
      .findOneOrFail(Session, { activeOrganizationId: created.id });
    return {
      organizationId: created.id,
      slug: created.slug,
      name: created.name,
      ownerMemberId: created.members[0]?.id ?? '',
      defaultTeamId: session.activeTeamId ?? '',
    };
  }

  /** The attacker's sessions: B active (or A, as a stale pointer would have it), no team. */
  async function setActive(userId: string, organizationId: string) {
    await api.orm.em
      .fork()
      .nativeUpdate(
        Session,
        { user: userId },
        { activeOrganizationId: organizationId, activeTeamId: null },
      );
  }

  before(async () => {
    api = await startApiServer(loadRuntimeConfig(), { host: '127.0.0.1', port: 0 });
    routes = organizationRouteTable(api);
    const settings = authSettings(api.config);
    const em = api.orm.em.fork();

    const victimOwner = await signedInUser('Victim owner');
    const victimAdmin = await signedInUser('Victim admin');
    member = await signedInUser('Member of A');
    stranger = await signedInUser('Owner of B');
    const a = await createOrganization(victimOwner);
    const b = await createOrganization(stranger);

    const support = await victimOwner.client.organization.createTeam({
      name: 'Support',
      organizationId: a.organizationId,
    });
    assert.equal(support.error, null);
    const supportTeamId = support.data?.id ?? '';
    const admin = await addMember(em, settings, {
      userId: victimAdmin.userId,
      organizationId: a.organizationId,
      role: 'admin',
      teamId: supportTeamId,
    });
    const plainMember = await addMember(em, settings, {
      userId: member.userId,
      organizationId: a.organizationId,
      role: 'member',
    });
    const invited = await victimOwner.client.organization.inviteMember({
      email: `invitee-${uniqueTag()}@example.com`,
      role: 'admin',
      organizationId: a.organizationId,
      teamId: supportTeamId,
    });
    assert.equal(invited.error, null);

    fixtures = {
      victim: {
        organizationId: a.organizationId,
        slug: a.slug,
        name: a.name,
        owner: { userId: victimOwner.userId, email: victimOwner.email, memberId: a.ownerMemberId },
        admin: { userId: victimAdmin.userId, email: victimAdmin.email, memberId: admin.id },
        defaultTeamId: a.defaultTeamId,
        supportTeamId,
        invitation: { id: invited.data?.id ?? '', email: invited.data?.email ?? '' },
      },
      attacker: {
        organizationId: b.organizationId,
        owner: { userId: stranger.userId, email: stranger.email, memberId: b.ownerMemberId },
        defaultTeamId: b.defaultTeamId,
        memberOfVictim: { userId: member.userId, email: member.email, memberId: plainMember.id },
      },
    };
    markers = markersOf(fixtures.victim, 'victim');
    // Every marker is set: an empty one would match every answer.
    assert.deepEqual(
      markers.filter(([, value]) => value === ''),
      [],
    );
  });
  after(() => api?.close());

  it('has an entry for every /api/auth/organization route, and a route for every entry', () => {
    const missing = [...routes].filter((key) => !(key in organizationRouteCases));
    const unknown = Object.keys(organizationRouteCases).filter((key) => !routes.has(key));
    assert.ok(routes.size > 0);
    assert.deepEqual(
      { missing, unknown },
      { missing: [], unknown: [] },
      'add each new organization route to api/auth/organization/adversarial-routes.ts',
    );
  });

  /** Sends one attack as `who`; what is wrong with the answer, if anything. */
  async function attack(
    key: string,
    request: AttackRequest,
    who: 'stranger' | 'member',
  ): Promise<string[]> {
    const [method = '', path = ''] = key.split(' ');
    const caller = who === 'stranger' ? stranger : member;
    const { victim, attacker } = fixtures;
    const home = who === 'stranger' ? attacker.organizationId : victim.organizationId;
    await setActive(caller.userId, request.activeVictim ? victim.organizationId : home);
    const query = new URLSearchParams(request.query ?? {}).toString();
    const response = await caller.fetch(`${api.url}${path}${query ? `?${query}` : ''}`, {
      method,
      ...(request.body !== undefined && {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(request.body),
      }),
    });
    const text = await response.text();
    const expected = who === 'stranger' ? request.stranger : (request.member as Refusal);
    const label = `${request.attempt} (${who}): answered ${response.status} ${text.slice(0, 200)}`;
    const problems: string[] = [];
    if ('own' in expected) {
      if (response.status !== 200) problems.push(`${label}, not 200 (${expected.own})`);
      const shown = expected.shows?.(fixtures);
      if (shown && !text.includes(shown)) problems.push(`${label}, without the caller's own`);
    } else {
      const { message } = expected;
      const wanted = { code: codeFromMessage(organizationMessages[message]), message };
      let body: unknown = null;
      try {
        body = JSON.parse(text);
      } catch {
        // Not JSON: reported below.
      }
      const got = body as { code?: string; message?: string } | null;
      if (
        response.status !== expected.status ||
        got?.code !== wanted.code ||
        got?.message !== organizationMessages[message]
      ) {
        problems.push(`${label}, not ${expected.status} ${wanted.code}`);
      }
    }
    const sent = `${query} ${JSON.stringify(request.body ?? '')}`;
    const leaked = markers
      .filter(([, value]) => text.includes(value) && !sent.includes(value))
      .map(([name]) => name);
    if (leaked.length) problems.push(`${request.attempt} (${who}): leaked ${leaked.join(', ')}`);
    return problems;
  }

  describe("B's owner and a plain member of A, against A's objects", () => {
    for (const key of Object.keys(organizationRouteCases).sort()) {
      it(`${key}: refused, or only the caller's own, changing nothing of A`, async () => {
        const requests = organizationRouteCases[key]?.(fixtures) ?? [];
        const before = await victimRows(api, fixtures);
        const problems: string[] = [];
        for (const request of requests) {
          problems.push(...(await attack(key, request, 'stranger')));
          if (request.member) problems.push(...(await attack(key, request, 'member')));
        }
        const after = await victimRows(api, fixtures);
        for (const row of before.filter((row) => !after.includes(row))) {
          problems.push(`changed or removed: ${row}`);
        }
        for (const row of after.filter((row) => !before.includes(row))) {
          problems.push(`changed or added: ${row}`);
        }
        assert.deepEqual(problems, []);
      });
    }
  });
});
