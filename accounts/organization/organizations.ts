import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { revokeOrganizationTokens } from '../../commerce/access-tokens/service.ts';
import { Invitation, Member, Organization, Session, Team, User } from '../../db/entities/index.ts';
import { isUuid } from '../../db/ids.ts';
import { creatorRole } from '../../domain/organization-permissions.ts';
import { organizationError } from './errors.ts';
import { type OrganizationLimits, requireRoomForOrganization } from './limits.ts';
import { clearActiveOrganization } from './members.ts';
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

/** An organization by id or slug; ids that are not UUIDs name none. */
export function findOrganization(em: EntityManager, by: { id: string } | { slug: string }) {
  if ('id' in by && !isUuid(by.id)) return Promise.resolve(null);
  return em.findOne(Organization, by);
}

export async function isSlugTaken(em: EntityManager, slug: string): Promise<boolean> {
  return (await em.count(Organization, { slug })) > 0;
}

export interface OrganizationChanges {
  name?: string | undefined;
  slug?: string | undefined;
  logo?: string | undefined;
  metadata?: Record<string, unknown> | undefined;
}

/** Changes the given fields; a slug another organization has is refused. */
export async function updateOrganization(
  em: EntityManager,
  organization: Organization,
  changes: OrganizationChanges,
): Promise<void> {
  if (changes.slug !== undefined && changes.slug !== organization.slug) {
    if (await isSlugTaken(em, changes.slug)) {
      throw organizationError('invalid', 'ORGANIZATION_ALREADY_EXISTS');
    }
    organization.slug = changes.slug;
  }
  if (changes.name !== undefined) organization.name = changes.name;
  if (changes.logo !== undefined) organization.logo = changes.logo;
  if (changes.metadata !== undefined) organization.metadata = JSON.stringify(changes.metadata);
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) {
      throw organizationError('invalid', 'ORGANIZATION_ALREADY_EXISTS');
    }
    throw error;
  }
}

/**
 * The organization goes: nobody's session keeps pointing at it, no process keeps taking its
 * access tokens; its members, teams and invitations cascade.
 */
export async function deleteOrganization(em: EntityManager, organizationId: string) {
  await em.transactional(async (tx) => {
    await clearActiveOrganization(tx, organizationId);
    await revokeOrganizationTokens(tx, organizationId);
    await tx.nativeDelete(Organization, { id: organizationId });
  });
}

/** The organizations `user` belongs to, oldest first. */
export async function listUserOrganizations(em: EntityManager, user: User) {
  const memberships = await em.find(
    Member,
    { user },
    { populate: ['organization'], orderBy: { organization: { createdAt: 'asc' }, id: 'asc' } },
  );
  return memberships.map((member) => member.organization);
}

/** What get-full-organization shows: the first `membersLimit` members, invitations and teams. */
export async function organizationContents(
  em: EntityManager,
  organization: Organization,
  membersLimit: number,
) {
  const [members, invitations, teams] = await Promise.all([
    em.find(
      Member,
      { organization },
      { populate: ['user'], orderBy: { createdAt: 'asc', id: 'asc' }, limit: membersLimit },
    ),
    em.find(Invitation, { organization }, { orderBy: { createdAt: 'asc', id: 'asc' } }),
    em.find(Team, { organization }, { orderBy: { createdAt: 'asc', id: 'asc' } }),
  ]);
  return { members, invitations, teams };
}
