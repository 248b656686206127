import { defineEntity, p } from '@mikro-orm/core';
import { idColumn, timestampColumns } from './columns.ts';

/**
 * An organization: the team of people behind a seller, and the seller itself on the commerce
 * side (one row, two views: camelCase under /api/auth, snake_case under /v1).
 */
const OrganizationSchema = defineEntity({
  name: 'Organization',
  tableName: 'organizations',
  properties: {
    id: idColumn(),
    name: p.string(),
    slug: p.string().unique(),
    logo: p.text().nullable(),
    /** JSON text, as Better Auth stores it; answered as an object. */
    metadata: p.text().nullable(),
    ...timestampColumns(),
  },
});

export class Organization extends OrganizationSchema.class {}
OrganizationSchema.setClass(Organization);
