import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  memberMayDo,
  memberScopes,
  permissionsBeyond,
  unknownPermissions,
} from './organization-permissions.ts';
import { allScopes } from './scopes.ts';

describe('organization permissions (spec section 6)', () => {
  const cases: [role: string, request: Record<string, string[]>, allowed: boolean][] = [
    ['owner', { organization: ['update', 'delete'] }, true],
    ['admin', { organization: ['update'] }, true],
    ['admin', { organization: ['delete'] }, false],
    ['member', { organization: ['update'] }, false],
    ['owner', { member: ['create', 'update', 'delete'] }, true],
    ['admin', { member: ['delete'] }, true],
    ['member', { member: ['create'] }, false],
    ['admin', { invitation: ['create', 'cancel'] }, true],
    ['member', { invitation: ['create'] }, false],
    ['admin', { team: ['create', 'update', 'delete'] }, true],
    ['member', { team: ['delete'] }, false],
    // Comma-separated roles: any one of them grants.
    ['member,admin', { member: ['delete'] }, true],
    ['member,owner', { organization: ['delete'] }, true],
    // Not trimmed, as Better Auth: " owner" is no role.
    ['member, owner', { organization: ['delete'] }, false],
    // Unknown roles and resources grant nothing; an empty request grants nothing.
    ['superuser', { organization: ['update'] }, false],
    ['owner', { billing: ['read'] }, false],
    ['owner', {}, false],
  ];
  for (const [role, request, allowed] of cases) {
    it(`${role} ${allowed ? 'may' : 'may not'} ${JSON.stringify(request)}`, () => {
      assert.equal(memberMayDo(role, request), allowed);
    });
  }
});

describe('custom organization roles (dynamic access control)', () => {
  const custom = {
    editor: { products: ['write'], member: ['update'] },
    owner: { organization: [] },
  };

  it('grant what their map names, and nothing else', () => {
    assert.equal(memberMayDo('editor', { products: ['write'] }, custom), true);
    assert.equal(memberMayDo('editor', { member: ['update'], products: ['write'] }, custom), true);
    assert.equal(memberMayDo('editor', { member: ['delete'] }, custom), false);
    assert.equal(memberMayDo('editor', { customers: ['read'] }, custom), false);
    // Unknown without the organization's roles.
    assert.equal(memberMayDo('editor', { products: ['write'] }), false);
    // Beside a predefined role, each grants on its own; a request must fit one of them whole.
    assert.equal(memberMayDo('member,editor', { products: ['write'] }, custom), true);
    assert.equal(memberMayDo('member,editor', { ac: ['read'] }, custom), true);
    assert.equal(
      memberMayDo('member,editor', { products: ['write'], ac: ['read'] }, custom),
      false,
    );
  });

  it('never redefine a predefined role', () => {
    assert.equal(memberMayDo('owner', { organization: ['delete'] }, custom), true);
  });

  it('become /v1 scopes: owners every one, members the reads, a custom role its own', () => {
    assert.deepEqual(memberScopes('owner'), allScopes);
    assert.deepEqual(memberScopes('admin'), allScopes);
    assert.deepEqual(
      memberScopes('member'),
      allScopes.filter((scope) => scope.endsWith(':read')),
    );
    assert.deepEqual(memberScopes('editor', custom), ['products:write']);
    assert.deepEqual(memberScopes('editor'), []);
  });

  it('name only known resources and actions', () => {
    assert.deepEqual(unknownPermissions({ member: ['update'], products: ['read', 'write'] }), []);
    assert.deepEqual(unknownPermissions({ billing: ['read'], member: ['fly', 'update'] }), [
      'billing',
      'member:fly',
    ]);
  });

  it('tell what a maker of a role does not hold', () => {
    assert.deepEqual(permissionsBeyond('admin', { organization: ['update', 'delete'] }), [
      'organization:delete',
    ]);
    assert.deepEqual(permissionsBeyond('editor', { products: ['read', 'write'] }, custom), [
      'products:read',
    ]);
  });
});
