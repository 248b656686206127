import { defineEntity, p } from '@mikro-orm/core';
import { idColumn } from './columns.ts';
import { Organization } from './organization.ts';
import { User } from './user.ts';

/**
 * An organization access token (`polar_oat_…`): a bearer credential for /v1 scoped to one
 * organization and a set of scopes. Only its SHA-256 is stored; the token is shown once.
 */
const OrganizationAccessTokenSchema = defineEntity({
  name: 'OrganizationAccessToken',
  tableName: 'organization_access_tokens',
  properties: {
    id: idColumn(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade').index(),
    /** Hex SHA-256 of the whole token. */
    tokenHash: p.string().unique(),
    comment: p.string(),
    scopes: p.array<string>(),
    expiresAt: p.datetime().nullable(),
    lastUsedAt: p.datetime().nullable(),
    /**
     * The member who created it (null for seeded tokens). Their tokens end with their membership
     * or owner/admin role (commerce/access-tokens/service.ts), and with the user: never orphaned.
     */
    createdBy: () => p.manyToOne(User).nullable().deleteRule('cascade'),
    createdAt: p.datetime().onCreate(() => new Date()),
    modifiedAt: p
      .datetime()
      .nullable()
      .onUpdate(() => new Date()),
  },
});

export class OrganizationAccessToken extends OrganizationAccessTokenSchema.class {}
OrganizationAccessTokenSchema.setClass(OrganizationAccessToken);
