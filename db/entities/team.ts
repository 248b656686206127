import { defineEntity, p } from '@mikro-orm/core';
import { idColumn } from './columns.ts';
import { Organization } from './organization.ts';
import { User } from './user.ts';

const TeamSchema = defineEntity({
  name: 'Team',
  tableName: 'teams',
  properties: {
    id: idColumn(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade').index(),
    name: p.string(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .nullable()
      .onUpdate(() => new Date()),
  },
});

export class Team extends TeamSchema.class {}
TeamSchema.setClass(Team);

const TeamMemberSchema = defineEntity({
  name: 'TeamMember',
  tableName: 'team_members',
  uniques: [{ properties: ['team', 'user'] }],
  properties: {
    id: idColumn(),
    team: () => p.manyToOne(Team).deleteRule('cascade').index(),
    user: () => p.manyToOne(User).deleteRule('cascade').index(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export class TeamMember extends TeamMemberSchema.class {}
TeamMemberSchema.setClass(TeamMember);
