import { defineEntity, p } from '@mikro-orm/core';
import { idColumn } from './columns.ts';
import { Organization } from './organization.ts';
import { User } from './user.ts';

/** A user's membership of an organization, with their role(s), comma-separated. */
const MemberSchema = defineEntity({
  name: 'Member',
  tableName: 'members',
  uniques: [{ properties: ['organization', 'user'] }],
  properties: {
    id: idColumn(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade').index(),
    user: () => p.manyToOne(User).deleteRule('cascade').index(),
    role: p.string(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export class Member extends MemberSchema.class {}
MemberSchema.setClass(Member);
