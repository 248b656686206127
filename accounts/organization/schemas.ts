import { z } from 'zod';
import { dateTimeWireSchema } from '../../commerce/wire.ts';
import { invitationStatuses } from '../../db/entities/invitation.ts';
import type { Documents } from '../schemas.ts';
import type {
  invitationJson,
  memberJson,
  memberWithUserJson,
  organizationJson,
  teamJson,
} from './context.ts';
import type { memberRowJson } from './member-list.ts';
import type { roleJson } from './roles.ts';
import type { teamMemberJson } from './teams.ts';

/**
 * What the organization routes of /api/auth answer, as Better Auth 1.3.x's organization client
 * reads it (the builders in context.ts, teams.ts, roles.ts and member-list.ts produce these).
 */

const permissions = z.record(z.string(), z.array(z.string()));

// Not 'Organization': that is Polar's seller organization, which /api/auth answers inside a
// restored subscription.
export const organizationWireSchema = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    slug: z.string(),
    logo: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()).nullable(),
    createdAt: dateTimeWireSchema,
  })
  .meta({ id: 'AuthOrganization' });

/** A member names its organization and user by id; `role` is a comma-separated list. */
export const memberWireSchema = z
  .strictObject({
    id: z.string(),
    organizationId: z.string(),
    userId: z.string(),
    role: z.string(),
    createdAt: dateTimeWireSchema,
  })
  .meta({ id: 'Member' });

/** A member with the four user fields Better Auth adds (list-members, get-full-organization…). */
export const memberWithUserWireSchema = memberWireSchema
  .extend({
    user: z.strictObject({
      id: z.string(),
      name: z.string(),
      email: z.string(),
      image: z.string().nullable(),
    }),
  })
  .meta({ id: 'MemberWithUser' });

/** Better Auth 1.3.34's invitation has no createdAt. */
export const invitationWireSchema = z
  .strictObject({
    id: z.string(),
    organizationId: z.string(),
    email: z.string(),
    role: z.string(),
    teamId: z.string().nullable(),
    status: z.enum(invitationStatuses),
    expiresAt: dateTimeWireSchema,
    inviterId: z.string(),
  })
  .meta({ id: 'Invitation' });

/** get-invitation: the invitation with what its invitee needs to decide. */
export const invitationDetailsWireSchema = invitationWireSchema.extend({
  organizationName: z.string(),
  organizationSlug: z.string(),
  inviterEmail: z.string(),
});

/** accept-invitation and reject-invitation (whose member is null). */
export const invitationAnswerWireSchema = z.strictObject({
  invitation: invitationWireSchema,
  member: memberWireSchema.nullable(),
});

export const teamWireSchema = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    organizationId: z.string(),
    createdAt: dateTimeWireSchema,
    updatedAt: dateTimeWireSchema.nullable(),
  })
  .meta({ id: 'Team' });

export const teamMemberWireSchema = z
  .strictObject({
    id: z.string(),
    teamId: z.string(),
    userId: z.string(),
    createdAt: dateTimeWireSchema,
  })
  .meta({ id: 'TeamMember' });

/** A role the organization defined for itself (dynamic access control). */
export const organizationRoleWireSchema = z
  .strictObject({
    id: z.string(),
    organizationId: z.string(),
    role: z.string(),
    permission: permissions,
    createdAt: dateTimeWireSchema,
    updatedAt: dateTimeWireSchema.nullable(),
  })
  .meta({ id: 'OrganizationRole' });

/** organization/create: the organization with its first member, the creator. */
export const createdOrganizationWireSchema = organizationWireSchema.extend({
  members: z.array(memberWireSchema),
});

/** get-full-organization: the organization with its members, invitations and teams. */
export const fullOrganizationWireSchema = organizationWireSchema.extend({
  invitations: z.array(invitationWireSchema),
  members: z.array(memberWithUserWireSchema),
  teams: z.array(teamWireSchema),
});

export const memberPageWireSchema = z.strictObject({
  members: z.array(memberWithUserWireSchema),
  total: z.int(),
});

export const createdRoleWireSchema = z.strictObject({
  success: z.literal(true),
  roleData: organizationRoleWireSchema,
  statements: permissions,
});

export const updatedRoleWireSchema = z.strictObject({
  success: z.literal(true),
  roleData: organizationRoleWireSchema,
});

/** remove-team and remove-team-member answer with a sentence. */
export const messageWireSchema = z.strictObject({ message: z.string() });

/** Accepts only `true`: a `Documents` that is false fails to compile where it is written. */
type Holds<Check extends true> = Check;

/** The builders held to their schemas at compile time: a field added to one alone fails tsc. */
export type BuildersDocumented = [
  Holds<Documents<typeof organizationJson, typeof organizationWireSchema>>,
  Holds<Documents<typeof memberJson, typeof memberWireSchema>>,
  Holds<Documents<typeof memberWithUserJson, typeof memberWithUserWireSchema>>,
  Holds<Documents<typeof memberRowJson, typeof memberWithUserWireSchema>>,
  Holds<Documents<typeof invitationJson, typeof invitationWireSchema>>,
  Holds<Documents<typeof teamJson, typeof teamWireSchema>>,
  Holds<Documents<typeof teamMemberJson, typeof teamMemberWireSchema>>,
  Holds<Documents<typeof roleJson, typeof organizationRoleWireSchema>>,
];
