import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { memberMayDo } from './organization-permissions.ts';

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
