import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Member, Organization, Session, type Team, User } from '../../db/entities/index.ts';
import { creatorRole } from '../../domain/organization-permissions.ts';
import { organizationError } from './errors.ts';
import { type OrganizationLimits, requireRoomForOrganization } from './limits.ts';
import { createDefaultTeam } from './teams.ts';

export interface NewOrganization {
  name: string;
  slug: string;
  logo?: string | undefined;
  metadata?: Record<string, unknown> | undefined;
}

export interface CreatedOrganization {
  organization: Organization;
  /** The creator, as owner. */
  member: Member;
  /** The default team Better Auth makes with teams enabled, the creator in it. */
  team: Team;
}

/**
 * Creates an organization with its creator as owner and its default team, all or nothing;
 * `activate` (the creator's session) then points at both. Refuses a taken slug and a creator
 * already at the organization limit.
 */
export async function createOrganization(
  em: EntityManager,
  limits: OrganizationLimits,
  creator: User,
  input: NewOrganization,
  activate?: Session,
): Promise<CreatedOrganization> {
  try {
    return await em.transactional(async (tx) => {
      await requireRoomForOrganization(tx, limits, creator.id);
      if (await tx.count(Organization, { slug: input.slug })) {
        throw organizationError('invalid', 'ORGANIZATION_ALREADY_EXISTS');
      }
      const organization = tx.create(Organization, {
        name: input.name,
        slug: input.slug,
        logo: input.logo ?? null,
        metadata: input.metadata ? JSON.stringify(input.metadata) : null,
      });
      const user = tx.getReference(User, creator.id);
      const member = tx.create(Member, { organization, user, role: creatorRole });
      const team = createDefaultTeam(tx, organization, user);
      await tx.flush();
      if (activate) {
        await tx.nativeUpdate(
          Session,
          { id: activate.id },
          { activeOrganizationId: organization.id, activeTeamId: team.id },
        );
      }
      return { organization, member, team };
    });
  } catch (error) {
    // Two creations with one slug raced past the check: the unique index decides.
    if (error instanceof UniqueConstraintViolationException) {
      throw organizationError('invalid', 'ORGANIZATION_ALREADY_EXISTS');
    }
    throw error;
  }
}
