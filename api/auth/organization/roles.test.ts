import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createAuthClient } from 'better-auth/client';
import { organizationClient } from 'better-auth/client/plugins';
import { createAccessControl } from 'better-auth/plugins/access';
import { organizationMessages } from '../../../accounts/organization/errors.ts';
import { addMember } from '../../../accounts/organization/members.ts';
import { maximumRolesPerOrganization } from '../../../accounts/organization/roles.ts';
import { authSettings } from '../../../accounts/settings.ts';
import { signedInOwner, signedInPerson } from '../../../commerce/access-tokens/testing.ts';
import { Invitation, Member, OrganizationRole, User } from '../../../db/entities/index.ts';
import { organizationStatements } from '../../../domain/organization-permissions.ts';
import { startTestApi } from '../../testing.ts';

const uniqueTag = () => randomBytes(5).toString('hex');

type Api = Awaited<ReturnType<typeof startTestApi>>;
type Answer = { data: unknown; error: unknown };
type Permission = Record<string, string[]>;

const failure = (error: unknown) =>
  error as { status: number; code?: string; message?: string; details?: unknown };

function refusedWith(
  { data, error }: Answer,
  status: number,
  key: keyof typeof organizationMessages,
) {
  assert.equal(data, null, JSON.stringify(data));
  assert.equal(failure(error)?.status, status, JSON.stringify(error));
  assert.equal(failure(error).message, organizationMessages[key]);
}

/**
 * Better Auth 1.3.34's client types flatten the roleName-or-roleId choice of delete-role,
 * get-role and update-role, refusing both in an object literal; a body handed over through a
 * function type-checks as it should.
 */
const byRole = <Body extends object>(body: Body): Body & { organizationId?: string } => body;

// The server's matrix, handed to the client as an app with a custom `ac` would: it types the
// permission maps, commerce resources included.
const ac = createAccessControl(organizationStatements);

describe('dynamic access control through the Better Auth client', () => {
  let api: Api;

  before(async () => {
    api = await startTestApi();
  });
  after(() => api.close());

  /**
   * A signed-in person of the dashboard (its cookies and /v1 `call`), with Better Auth's client
   * set up for dynamic access control over the same browser.
   */
  function withRoles<Person extends Awaited<ReturnType<typeof signedInPerson>>>(person: Person) {
    const roles = createAuthClient({
      baseURL: `${api.url}/api/auth`,
      fetchOptions: { customFetchImpl: person.fetch },
      plugins: [organizationClient({ ac, dynamicAccessControl: { enabled: true } })],
    }).organization;
    return { ...person, roles };
  }

  async function ownerWithOrganization() {
    return withRoles(await signedInOwner(api));
  }

  type Owner = Awaited<ReturnType<typeof ownerWithOrganization>>;

  /**
   * Someone who joins the owner's organization with `role`, through an invitation they accept
   * or Better Auth's server-only add-member, and makes it active.
   */
  async function joinedMember(owner: Owner, role: string, via: 'invitation' | 'add-member') {
    const person = withRoles(await signedInPerson(api));
    if (via === 'invitation') await acceptInvitation(owner, person, role);
    else {
      await addMember(api.orm.em.fork(), authSettings(api.config), {
        userId: person.userId,
        organizationId: owner.organizationId,
        role,
      });
    }
    const { error } = await person.client.organization.setActive({
      organizationId: owner.organizationId,
    });
    assert.equal(error, null);
    const member = await api.orm.em
      .fork()
      .findOneOrFail(Member, { user: person.userId, organization: owner.organizationId });
    return { ...person, memberId: member.id };
  }

  async function acceptInvitation(
    owner: Owner,
    person: ReturnType<typeof withRoles<Awaited<ReturnType<typeof signedInPerson>>>>,
    role: string,
  ) {
    const invited = await owner.client.organization.inviteMember({
      email: person.email,
      role: role as 'member',
    });
    assert.equal(invited.error, null, JSON.stringify(invited.error));
    const invitation = await api.orm.em
      .fork()
      .findOneOrFail(Invitation, { email: person.email.toLowerCase() });
    assert.equal(invitation.role, role);
    // The invitee proves the address as the mailed link would: verified email.
    await api.orm.em.fork().nativeUpdate(User, { id: person.userId }, { emailVerified: true });
    const accepted = await person.client.organization.acceptInvitation({
      invitationId: invitation.id,
    });
    assert.equal(accepted.error, null, JSON.stringify(accepted.error));
  }

  const ask = async (person: ReturnType<typeof withRoles>, permissions: Permission) =>
    (await person.roles.hasPermission({ permissions })).data?.success;

  it('creates, lists, reads, updates and deletes a role, the change applying at once', async () => {
    const owner = await ownerWithOrganization();
    const permission = { member: ['update'], products: ['write'], ac: ['read'] };
    const created = await owner.roles.createRole({ role: 'Catalog-Editor', permission });
    assert.equal(created.error, null, JSON.stringify(created.error));
    const roleData = created.data?.roleData;
    // Names are stored lower-cased, as Better Auth does.
    assert.equal(roleData?.role, 'catalog-editor');
    assert.equal(roleData?.organizationId, owner.organizationId);
    assert.deepEqual(roleData?.permission, permission);
    assert.deepEqual(created.data?.statements, permission);

    // Assigned through an invitation; the member can do exactly what it grants.
    const editor = await joinedMember(owner, 'catalog-editor', 'invitation');
    assert.equal(await ask(editor, { member: ['update'] }), true);
    assert.equal(await ask(editor, { products: ['write'] }), true);
    assert.equal(await ask(editor, { member: ['delete'] }), false);
    assert.equal(await ask(editor, { invitation: ['create'] }), false);
    assert.equal(await ask(editor, { customers: ['read'] }), false);

    // /v1 through the dashboard session: products are writable, nothing else readable.
    const product = await editor.call('POST', '/v1/products/', {
      name: 'Editor lamp',
      prices: [{ amount_type: 'fixed', price_amount: 2500, price_currency: 'usd' }],
    });
    assert.equal(product.status, 201, JSON.stringify(product.body));
    assert.equal((await editor.call('GET', '/v1/products/')).status, 200);
    const customers = await editor.call('GET', '/v1/customers/');
    assert.equal(customers.status, 403);
    assert.equal(customers.body.error, 'insufficient_scope');
    // Organization routes: not allowed to invite or remove, allowed to change a member's role.
    refusedWith(
      await editor.client.organization.inviteMember({ email: 'x@example.com', role: 'member' }),
      403,
      'YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION',
    );

    // list and get (by name and by id), readable by the role's own holder (it has ac: read).
    const listed = await editor.roles.listRoles();
    assert.equal(listed.error, null);
    assert.deepEqual(
      listed.data?.map((role) => [role.id, role.role, role.permission]),
      [[roleData?.id, 'catalog-editor', permission]],
    );
    const byName = await owner.roles.getRole({ query: byRole({ roleName: 'catalog-editor' }) });
    assert.equal(byName.data?.id, roleData?.id);
    const byId = await owner.roles.getRole({ query: byRole({ roleId: roleData?.id ?? '' }) });
    assert.deepEqual(byId.data?.permission, permission);

    // Update: products become read-only, customers readable; the next request sees it.
    const narrowed = { member: ['update'], products: ['read'], customers: ['read'], ac: ['read'] };
    const updated = await owner.roles.updateRole(
      byRole({
        roleName: 'catalog-editor',
        data: { permission: narrowed },
      }),
    );
    assert.equal(updated.error, null, JSON.stringify(updated.error));
    assert.deepEqual(updated.data?.roleData.permission, narrowed);
    assert.ok(updated.data?.roleData.updatedAt);
    assert.equal(await ask(editor, { products: ['write'] }), false);
    const refusedWrite = await editor.call('POST', '/v1/products/', {
      name: 'Too late',
      prices: [{ amount_type: 'fixed', price_amount: 100, price_currency: 'usd' }],
    });
    assert.equal(refusedWrite.status, 403);
    assert.equal(refusedWrite.body.error, 'insufficient_scope');
    assert.equal((await editor.call('GET', '/v1/customers/')).status, 200);

    // Renamed: the member's stored role follows, and still grants.
    const renamed = await owner.roles.updateRole(
      byRole({
        roleId: roleData?.id ?? '',
        data: { roleName: 'Catalog-Reader' },
      }),
    );
    assert.equal(renamed.data?.roleData.role, 'catalog-reader');
    const stored = await api.orm.em.fork().findOneOrFail(Member, editor.memberId);
    assert.equal(stored.role, 'catalog-reader');
    assert.equal(await ask(editor, { customers: ['read'] }), true);

    // Delete: refused while a member holds it, done once no one does.
    refusedWith(
      await owner.roles.deleteRole(byRole({ roleName: 'catalog-reader' })),
      400,
      'ROLE_IS_IN_USE',
    );
    const demoted = await owner.client.organization.updateMemberRole({
      memberId: editor.memberId,
      role: 'member',
    });
    assert.equal(demoted.error, null);
    const deleted = await owner.roles.deleteRole(byRole({ roleId: roleData?.id ?? '' }));
    assert.deepEqual(deleted.data, { success: true });
    refusedWith(
      await owner.roles.getRole({ query: byRole({ roleName: 'catalog-reader' }) }),
      400,
      'ROLE_NOT_FOUND',
    );
    // The role is gone: it can no longer be given.
    refusedWith(
      await owner.client.organization.updateMemberRole({
        memberId: editor.memberId,
        role: 'catalog-reader',
      }),
      400,
      'ROLE_NOT_FOUND',
    );
  });

  it('gives custom roles through update-member-role, with several roles granting together', async () => {
    const owner = await ownerWithOrganization();
    await owner.roles.createRole({ role: 'inviter', permission: { invitation: ['create'] } });
    const person = await joinedMember(owner, 'member', 'add-member');
    assert.equal(await ask(person, { invitation: ['create'] }), false);
    const given = await owner.client.organization.updateMemberRole({
      memberId: person.memberId,
      role: ['member', 'inviter'],
    });
    assert.equal(given.error, null, JSON.stringify(given.error));
    assert.equal(given.data?.role, 'member,inviter');
    assert.equal(await ask(person, { invitation: ['create'] }), true);
    // A plain member's reads still come from `member`.
    assert.equal(await ask(person, { ac: ['read'], products: ['read'] }), true);
    const invited = await person.client.organization.inviteMember({
      email: `guest-${uniqueTag()}@example.com`,
      role: 'member',
    });
    assert.equal(invited.error, null, JSON.stringify(invited.error));
    // The pending invitation's role counts as use too.
    refusedWith(
      await owner.roles.deleteRole(byRole({ roleName: 'inviter' })),
      400,
      'ROLE_IS_IN_USE',
    );
  });

  it('refuses predefined names, taken names, unknown resources and actions, and too many roles', async () => {
    const owner = await ownerWithOrganization();
    for (const role of ['owner', 'Admin', 'member']) {
      refusedWith(
        await owner.roles.createRole({ role, permission: {} }),
        400,
        'ROLE_NAME_IS_ALREADY_TAKEN',
      );
    }
    refusedWith(
      await owner.roles.deleteRole(byRole({ roleName: 'admin' })),
      400,
      'CANNOT_DELETE_A_PRE_DEFINED_ROLE',
    );
    refusedWith(
      await owner.roles.updateRole(byRole({ roleName: 'admin', data: { permission: {} } })),
      400,
      'ROLE_NOT_FOUND',
    );
    const created = await owner.roles.createRole({ role: 'support', permission: {} });
    assert.equal(created.error, null);
    refusedWith(
      await owner.roles.createRole({ role: 'Support', permission: {} }),
      400,
      'ROLE_NAME_IS_ALREADY_TAKEN',
    );
    await owner.roles.createRole({ role: 'billing', permission: {} });
    refusedWith(
      await owner.roles.updateRole(byRole({ roleName: 'billing', data: { roleName: 'support' } })),
      400,
      'ROLE_NAME_IS_ALREADY_TAKEN',
    );
    refusedWith(
      await owner.roles.updateRole(byRole({ roleName: 'billing', data: { roleName: 'owner' } })),
      400,
      'ROLE_NAME_IS_ALREADY_TAKEN',
    );
    for (const permission of [
      { billing: ['read'] },
      { member: ['fly'] },
      { products: ['delete'] },
    ]) {
      refusedWith(
        await owner.roles.createRole({ role: `odd-${uniqueTag()}`, permission } as never),
        400,
        'INVALID_RESOURCE',
      );
      refusedWith(
        await owner.roles.updateRole(
          byRole({ roleName: 'support', data: { permission } }) as never,
        ),
        400,
        'INVALID_RESOURCE',
      );
    }
    // A comma would split the name in members' role lists.
    const comma = await owner.roles.createRole({ role: 'a,b', permission: {} });
    assert.equal(failure(comma.error).status, 400);
    refusedWith(
      await owner.roles.getRole({ query: byRole({ roleName: 'nope' }) }),
      400,
      'ROLE_NOT_FOUND',
    );
    refusedWith(
      await owner.roles.deleteRole(byRole({ roleId: 'not-a-uuid' })),
      400,
      'ROLE_NOT_FOUND',
    );

    const em = api.orm.em.fork();
    const existing = await em.count(OrganizationRole, { organization: owner.organizationId });
    for (let n = existing; n < maximumRolesPerOrganization; n += 1) {
      em.create(OrganizationRole, {
        organization: owner.organizationId,
        role: `filler-${n}`,
        permission: {},
      });
    }
    await em.flush();
    refusedWith(
      await owner.roles.createRole({ role: 'one-too-many', permission: {} }),
      400,
      'TOO_MANY_ROLES',
    );
  });

  it('lets owners and admins manage roles, but no one grant more than they hold', async () => {
    const owner = await ownerWithOrganization();
    const admin = await joinedMember(owner, 'admin', 'add-member');
    const member = await joinedMember(owner, 'member', 'add-member');
    // An admin cannot delete the organization, so cannot make a role that may.
    const beyond = await admin.roles.createRole({
      role: 'destroyer',
      permission: { organization: ['delete'], team: ['create'] },
    });
    refusedWith(beyond, 403, 'YOU_ARE_NOT_ALLOWED_TO_CREATE_A_ROLE');
    assert.deepEqual(failure(beyond.error).details, {
      missingPermissions: ['organization:delete'],
    });
    const made = await admin.roles.createRole({ role: 'teams', permission: { team: ['create'] } });
    assert.equal(made.error, null, JSON.stringify(made.error));
    refusedWith(
      await admin.roles.updateRole(
        byRole({
          roleName: 'teams',
          data: { permission: { organization: ['delete'] } },
        }),
      ),
      403,
      'YOU_ARE_NOT_ALLOWED_TO_UPDATE_A_ROLE',
    );
    // A plain member holds `ac: read` only.
    refusedWith(
      await member.roles.createRole({ role: 'mine', permission: {} }),
      403,
      'YOU_ARE_NOT_ALLOWED_TO_CREATE_A_ROLE',
    );
    refusedWith(
      await member.roles.updateRole(byRole({ roleName: 'teams', data: { permission: {} } })),
      403,
      'YOU_ARE_NOT_ALLOWED_TO_UPDATE_A_ROLE',
    );
    refusedWith(
      await member.roles.deleteRole(byRole({ roleName: 'teams' })),
      403,
      'YOU_ARE_NOT_ALLOWED_TO_DELETE_A_ROLE',
    );
    assert.equal((await member.roles.listRoles()).data?.length, 1);
    // A role without `ac: read` cannot read roles, even its own.
    await owner.roles.createRole({ role: 'blind', permission: { team: ['create'] } });
    const blind = await joinedMember(owner, 'blind', 'add-member');
    refusedWith(await blind.roles.listRoles(), 403, 'YOU_ARE_NOT_ALLOWED_TO_LIST_A_ROLE');
    refusedWith(
      await blind.roles.getRole({ query: byRole({ roleName: 'blind' }) }),
      403,
      'YOU_ARE_NOT_ALLOWED_TO_READ_A_ROLE',
    );
    // A role holding `ac: create` manages roles within what it holds.
    await owner.roles.createRole({
      role: 'role-maker',
      permission: { ac: ['create', 'read'], team: ['create'] },
    });
    const maker = await joinedMember(owner, 'role-maker', 'add-member');
    const ok = await maker.roles.createRole({
      role: 'team-maker',
      permission: { team: ['create'] },
    });
    assert.equal(ok.error, null, JSON.stringify(ok.error));
    refusedWith(
      await maker.roles.createRole({ role: 'inviter', permission: { invitation: ['create'] } }),
      403,
      'YOU_ARE_NOT_ALLOWED_TO_CREATE_A_ROLE',
    );
  });

  it('keeps roles within their organization', async () => {
    const owner = await ownerWithOrganization();
    const created = await owner.roles.createRole({
      role: 'secret-keeper',
      permission: { member: ['delete'] },
    });
    const roleId = created.data?.roleData.id ?? '';
    const stranger = await ownerWithOrganization();
    const organizationId = owner.organizationId;
    // Named directly: refused as a non-member.
    refusedWith(
      await stranger.roles.listRoles({ query: { organizationId } }),
      403,
      'YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION',
    );
    refusedWith(
      await stranger.roles.getRole({ query: byRole({ organizationId, roleId }) }),
      403,
      'YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION',
    );
    refusedWith(
      await stranger.roles.updateRole(byRole({ organizationId, roleId, data: { permission: {} } })),
      403,
      'YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION',
    );
    refusedWith(
      await stranger.roles.deleteRole(byRole({ organizationId, roleId })),
      403,
      'YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION',
    );
    // Through their own organization: A's role is not there, by id or by name.
    refusedWith(await stranger.roles.getRole({ query: byRole({ roleId }) }), 400, 'ROLE_NOT_FOUND');
    refusedWith(await stranger.roles.deleteRole(byRole({ roleId })), 400, 'ROLE_NOT_FOUND');
    refusedWith(
      await stranger.roles.updateRole(
        byRole({ roleName: 'secret-keeper', data: { permission: {} } }),
      ),
      400,
      'ROLE_NOT_FOUND',
    );
    assert.deepEqual((await stranger.roles.listRoles()).data, []);
    // Nor can they give it to someone in their own organization.
    const helper = await joinedMember(stranger, 'member', 'add-member');
    refusedWith(
      await stranger.client.organization.updateMemberRole({
        memberId: helper.memberId,
        role: 'secret-keeper',
      }),
      400,
      'ROLE_NOT_FOUND',
    );
    refusedWith(
      await stranger.client.organization.inviteMember({
        email: `x-${uniqueTag()}@example.com`,
        role: 'secret-keeper' as 'member',
      }),
      400,
      'ROLE_NOT_FOUND',
    );
    // The same name in their organization is theirs, with its own permissions.
    const own = await stranger.roles.createRole({ role: 'secret-keeper', permission: {} });
    assert.equal(own.error, null);
    assert.notEqual(own.data?.roleData.id, roleId);
    const stored = await api.orm.em.fork().findOneOrFail(OrganizationRole, roleId);
    assert.deepEqual(stored.permission, { member: ['delete'] });
  });

  it('answers NO_ACTIVE_ORGANIZATION (create: its own message) without an organization', async () => {
    const person = withRoles(await signedInPerson(api));
    refusedWith(
      await person.roles.createRole({ role: 'x', permission: {} }),
      400,
      'YOU_MUST_BE_IN_AN_ORGANIZATION_TO_CREATE_A_ROLE',
    );
    refusedWith(await person.roles.listRoles(), 400, 'NO_ACTIVE_ORGANIZATION');
    refusedWith(
      await person.roles.getRole({ query: byRole({ roleName: 'x' }) }),
      400,
      'NO_ACTIVE_ORGANIZATION',
    );
    refusedWith(
      await person.roles.deleteRole(byRole({ roleName: 'x' })),
      400,
      'NO_ACTIVE_ORGANIZATION',
    );
    refusedWith(
      await person.roles.updateRole(byRole({ roleName: 'x', data: {} })),
      400,
      'NO_ACTIVE_ORGANIZATION',
    );
  });
});
