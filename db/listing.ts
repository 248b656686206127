/**
 * The one list query builder: every service's list reads a page of rows matching some filters,
 * in the caller's order, and counts every matching row. `findPage` does it; the helpers below
 * spell the filters lists share.
 */
import type { EntityManager, EntityName, FilterQuery, FindOptions } from '@mikro-orm/core';

/** Which page of a list: `page` counts from 1, `offset` rows come before it. */
export interface Page {
  page: number;
  limit: number;
  offset: number;
}

export type SortDirection = 'asc' | 'desc';

export interface SortCriterion<Field extends string> {
  field: Field;
  descending: boolean;
}

/**
 * What a list request asks: its filters (`Filter`'s fields), its page and, when it sorts by
 * `Field`s, its sort criteria.
 */
export type ListQuery<Filter extends object = object, Field extends string = never> = Filter & {
  page: Page;
} & ([Field] extends [never] ? unknown : { sorting: SortCriterion<Field>[] });

/**
 * How rows order by a sort field: by an entity property, or by what `(direction) => …` builds
 * (a related row's property, an SQL expression of db/sql.ts's `orderByExpression`).
 */
export type SortKey = string | ((direction: SortDirection) => object);

/** Sort criteria as a MikroORM `orderBy`, with `keys` saying how each field orders. */
export function orderBy<Field extends string>(
  criteria: SortCriterion<Field>[],
  keys: Record<Field, SortKey>,
): object[] {
  return criteria.map(({ field, descending }) => {
    const key = keys[field];
    const direction = descending ? 'desc' : 'asc';
    return typeof key === 'string' ? { [key]: direction } : key(direction);
  });
}

/** A filter a list may be asked for: left out when not asked (`false`, `undefined`, `''`). */
export type Condition<Entity> = FilterQuery<Entity> | false | undefined | null | '';

export interface PageQuery<Entity, Field extends string> {
  /** Every condition must hold; those not asked for are left out. */
  where: Condition<Entity>[];
  /** The caller's sort criteria, ordering as `sortKeys` say. */
  sorting?: SortCriterion<Field>[];
  sortKeys?: Record<NoInfer<Field>, SortKey>;
  /**
   * The order after the caller's criteria: a total one, so equal sort values never shuffle
   * between pages. By id unless said.
   */
  thenBy?: object[];
  page: Page;
  /** Relations loaded with the rows. */
  populate?: readonly string[];
}

const byId = [{ id: 'asc' }];

/** The order of lists that sort only by age (the id breaks ties). */
export const oldestFirst = [{ createdAt: 'asc' }, { id: 'asc' }];
export const newestFirst = [{ createdAt: 'desc' }, { id: 'desc' }];

/** One page of the rows of `entity` matching `query`, and how many match in all. */
export function findPage<Entity extends object, Field extends string = never>(
  em: EntityManager,
  entity: EntityName<Entity>,
  { where, sorting = [], sortKeys, thenBy = byId, page, populate }: PageQuery<Entity, Field>,
): Promise<[Entity[], number]> {
  const conditions = where.filter((condition): condition is FilterQuery<Entity> => !!condition);
  const sorted = sortKeys ? orderBy(sorting, sortKeys) : [];
  const options = {
    ...(populate && { populate }),
    orderBy: [...sorted, ...thenBy],
    limit: page.limit,
    offset: page.offset,
  } as FindOptions<object>;
  // Typed as rows of any entity: the conditions and order were checked against `Entity` above.
  const rows = em.findAndCount(
    entity as EntityName<object>,
    { $and: conditions as FilterQuery<object>[] },
    options,
  );
  return rows as Promise<[Entity[], number]>;
}

/** `property` is one of `values`: no filter when none are asked for. */
export function inList<Entity>(
  property: keyof Entity & string,
  values: readonly unknown[],
): Condition<Entity> {
  return values.length > 0 && ({ [property]: { $in: values } } as FilterQuery<Entity>);
}

/** `property` is set (`true`) or null (`false`): no filter when not asked (`undefined`). */
export function isSet<Entity>(
  property: keyof Entity & string,
  wanted: boolean | undefined,
): Condition<Entity> {
  return (
    wanted !== undefined && ({ [property]: wanted ? { $ne: null } : null } as FilterQuery<Entity>)
  );
}

/** `text` with LIKE's wildcards (`%`, `_`) and its escape (`\`) taken literally. */
export const escapeLike = (text: string) => text.replace(/[\\%_]/g, '\\$&');

/** A LIKE pattern matching `text` anywhere (a `?query=` search), its wildcards taken literally. */
export const likePattern = (text: string) => `%${escapeLike(text)}%`;

/** A `?query=` search: one of `properties` contains `text`, case-insensitively. */
export function textSearch<Entity>(
  properties: readonly (keyof Entity & string)[],
  text: string | null | undefined,
): Condition<Entity> {
  if (!text) return undefined;
  const pattern = likePattern(text);
  const matches = properties.map((property) => ({ [property]: { $ilike: pattern } }));
  return (matches.length === 1 ? matches[0] : { $or: matches }) as FilterQuery<Entity>;
}
