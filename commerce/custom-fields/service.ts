import { type EntityManager, UniqueConstraintViolationException } from '@mikro-orm/core';
import { invalidField } from '../../core/errors.ts';
import { announceChange } from '../../db/change-notifications.ts';
import { CustomField } from '../../db/entities/index.ts';
import { findPage, inList, type ListQuery, textSearch } from '../../db/listing.ts';
import type { CustomFieldType } from '../../domain/custom-field-values.ts';
import { resourceNotFound } from '../errors.ts';
import type {
  CustomFieldCreateInput,
  CustomFieldUpdateInput,
  customFieldSortFields,
} from './schemas.ts';

type CustomFieldSortField = (typeof customFieldSortFields)[number];

export interface CustomFieldListFilter {
  /** Part of the name or slug, any case. */
  query: string | null | undefined;
  types: CustomFieldType[];
}

/** A page of the organization's custom fields, with the total count. */
export function listCustomFields(
  em: EntityManager,
  organizationId: string,
  { types, query, sorting, page }: ListQuery<CustomFieldListFilter, CustomFieldSortField>,
): Promise<[CustomField[], number]> {
  return findPage(em, CustomField, {
    where: [
      { organization: organizationId },
      inList('type', types),
      textSearch(['name', 'slug'], query),
    ],
    sorting,
    sortKeys: { created_at: 'createdAt', slug: 'slug', name: 'name', type: 'type' },
    page,
  });
}

/** A custom field of the organization; other organizations' fields are not found. */
export async function getCustomField(
  em: EntityManager,
  organizationId: string,
  id: string,
): Promise<CustomField> {
  const field = await em.findOne(CustomField, { id, organization: organizationId });
  if (!field) throw resourceNotFound('Custom field not found');
  return field;
}

const slugTaken = () =>
  invalidField(['body', 'slug'], 'Custom field with this slug already exists.');

/** Refuses a slug another field of the organization already uses. */
async function assertSlugFree(
  em: EntityManager,
  organizationId: string,
  slug: string,
  exceptId?: string,
) {
  const other = await em.findOne(
    CustomField,
    { organization: organizationId, slug, ...(exceptId && { id: { $ne: exceptId } }) },
    { fields: ['id'] },
  );
  if (other) throw slugTaken();
}

/**
 * Writes in a transaction; a slug taken by a concurrent write (the unique constraint) answers
 * like one found taken beforehand.
 */
async function withFreeSlug<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw slugTaken();
    throw error;
  }
}

/** Creates a custom field; its slug must be free in the organization. */
export function createCustomField(
  em: EntityManager,
  organizationId: string,
  input: CustomFieldCreateInput,
): Promise<CustomField> {
  return withFreeSlug(() =>
    em.transactional(async (tx) => {
      await assertSlugFree(tx, organizationId, input.slug);
      return tx.create(CustomField, {
        organization: organizationId,
        type: input.type,
        slug: input.slug,
        name: input.name,
        properties: input.properties,
        metadata: input.metadata ?? {},
      });
    }),
  );
}

/**
 * Changes a field's name, slug, metadata or properties (replaced whole). The body names the
 * field's type, which cannot change.
 */
export function updateCustomField(
  em: EntityManager,
  organizationId: string,
  id: string,
  input: CustomFieldUpdateInput,
): Promise<CustomField> {
  return withFreeSlug(() =>
    em.transactional(async (tx) => {
      const field = await getCustomField(tx, organizationId, id);
      if (input.type !== field.type) {
        throw invalidField(['body', 'type'], "The type of a custom field can't be changed.");
      }
      if (input.slug && input.slug !== field.slug) {
        await assertSlugFree(tx, organizationId, input.slug, field.id);
        field.slug = input.slug;
      }
      if (input.name) field.name = input.name;
      if (input.properties) field.properties = input.properties;
      if (input.metadata) field.metadata = input.metadata;
      // Products embed the custom fields they ask for.
      await announceChange(tx, 'catalog', organizationId);
      return field;
    }),
  );
}

/** Deletes a custom field; the products asking for it stop asking (their links cascade). */
export function deleteCustomField(
  em: EntityManager,
  organizationId: string,
  id: string,
): Promise<void> {
  return em.transactional(async (tx) => {
    const field = await getCustomField(tx, organizationId, id);
    await tx.nativeDelete(CustomField, { id: field.id });
    await announceChange(tx, 'catalog', organizationId);
  });
}
