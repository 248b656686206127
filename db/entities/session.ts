import { defineEntity, p } from '@mikro-orm/core';
import { timestampColumns } from './columns.ts';
import { User } from './user.ts';

/**
 * A sign-in session, after Lucia's design: the client holds a random token and the table
 * keeps only its SHA-256, so a leaked table cannot be replayed as cookies.
 */
const SessionSchema = defineEntity({
  name: 'Session',
  tableName: 'sessions',
  properties: {
    /** Hex SHA-256 of the session token. */
    id: p.string().primary(),
    user: () => p.manyToOne(User).deleteRule('cascade').index(),
    expiresAt: p.datetime().index(),
    ipAddress: p.string().nullable(),
    userAgent: p.text().nullable(),
    /** The admin acting as this user, for an impersonation session. */
    impersonatedBy: p.uuid().nullable(),
    /** The organization the user works in now (Better Auth's organization plugin). */
    activeOrganizationId: p.uuid().nullable(),
    activeTeamId: p.uuid().nullable(),
    ...timestampColumns(),
  },
});

export class Session extends SessionSchema.class {}
SessionSchema.setClass(Session);
