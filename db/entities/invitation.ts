import { defineEntity, p } from '@mikro-orm/core';
import { idColumn } from './columns.ts';
import { Organization } from './organization.ts';
import { Team } from './team.ts';
import { User } from './user.ts';

export const invitationStatuses = ['pending', 'accepted', 'rejected', 'canceled'] as const;
export type InvitationStatus = (typeof invitationStatuses)[number];

/**
 * An invitation to join an organization. Its life (mail, reminder, expiry, answer) runs in the
 * invitation workflow; this row is what the API reads and answers.
 */
const InvitationSchema = defineEntity({
  name: 'Invitation',
  tableName: 'invitations',
  properties: {
    id: idColumn(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade').index(),
    /** Stored lower-cased: the invitee must sign in with this email. */
    email: p.string().lowercase().index(),
    role: p.string(),
    status: p.enum(invitationStatuses).default('pending'),
    team: () => p.manyToOne(Team).nullable().deleteRule('set null'),
    inviter: () => p.manyToOne(User).deleteRule('cascade'),
    expiresAt: p.datetime(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export class Invitation extends InvitationSchema.class {}
InvitationSchema.setClass(Invitation);
