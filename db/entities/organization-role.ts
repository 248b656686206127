import { defineEntity, p } from '@mikro-orm/core';
import { idColumn } from './columns.ts';
import { Organization } from './organization.ts';

/**
 * A role an organization defined for itself (Better Auth's dynamic access control): its name,
 * unique in the organization, and what it may do, actions per resource.
 */
const OrganizationRoleSchema = defineEntity({
  name: 'OrganizationRole',
  tableName: 'organization_roles',
  uniques: [{ properties: ['organization', 'role'] }],
  properties: {
    id: idColumn(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade').index(),
    role: p.string(),
    permission: p.json<Record<string, string[]>>(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .nullable()
      .onUpdate(() => new Date()),
  },
});

export class OrganizationRole extends OrganizationRoleSchema.class {}
OrganizationRoleSchema.setClass(OrganizationRole);
