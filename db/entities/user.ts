import { defineEntity, p } from '@mikro-orm/core';
import { idColumn, timestampColumns } from './columns.ts';

const UserSchema = defineEntity({
  name: 'User',
  tableName: 'users',
  properties: {
    id: idColumn(),
    /** Stored lower-cased, so the unique index is case-insensitive in effect. */
    email: p.string().lowercase().unique(),
    name: p.string(),
    image: p.text().nullable(),
    emailVerified: p.boolean().default(false),
    /** Admin roles, comma-separated (`user`, `admin`); any one of them grants. */
    role: p.string().default('user'),
    banned: p.boolean().default(false),
    banReason: p.text().nullable(),
    /** A ban without an end lasts until lifted. */
    banExpires: p.datetime().nullable(),
    ...timestampColumns(),
  },
});

export class User extends UserSchema.class {}
UserSchema.setClass(User);
