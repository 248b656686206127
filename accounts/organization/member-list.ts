import type { EntityManager, QBFilterQuery } from '@mikro-orm/postgresql';
import { Member } from '../../db/entities/index.ts';
import { isUuid } from '../../db/ids.ts';

// list-members (Better Auth 1.3.34): a page of an organization's members, filtered and sorted.

const memberFields = {
  id: 'id',
  organizationId: 'organization',
  userId: 'user',
  role: 'role',
  createdAt: 'createdAt',
} as const;
export type MemberField = keyof typeof memberFields;
export const memberFieldNames = Object.keys(memberFields) as [MemberField, ...MemberField[]];

export const filterOperators = ['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'contains'] as const;
type FilterOperator = (typeof filterOperators)[number];

/** Which operators each member field can be filtered with, and what its values must look like. */
export const filterRules: Record<
  MemberField,
  { operators: readonly FilterOperator[]; valid(value: string): boolean }
> = {
  id: { operators: ['eq', 'ne'], valid: isUuid },
  organizationId: { operators: ['eq', 'ne'], valid: isUuid },
  userId: { operators: ['eq', 'ne'], valid: isUuid },
  role: { operators: filterOperators, valid: () => true },
  createdAt: {
    operators: ['eq', 'ne', 'lt', 'lte', 'gt', 'gte'],
    valid: (value) => !Number.isNaN(Date.parse(value)),
  },
};

/** list-members' query, as the route read and checked it (filterRules). */
export interface MemberListQuery {
  limit?: number | undefined;
  offset?: number | undefined;
  sortBy?: MemberField | undefined;
  sortDirection?: 'asc' | 'desc' | undefined;
  filterField?: MemberField | undefined;
  filterValue?: string | undefined;
  filterOperator?: FilterOperator | undefined;
}

/** A list-members row; timestamps arrive as PostgreSQL's text, unparsed by the driver. */
export interface MemberRow {
  id: string;
  role: string;
  created_at: string;
  organization_id: string;
  user_id: string;
  name: string;
  email: string;
  image: string | null;
}

/** The same answer as memberWithUserJson, from a row. */
export const memberRowJson = (row: MemberRow) => ({
  id: row.id,
  organizationId: row.organization_id,
  userId: row.user_id,
  role: row.role,
  createdAt: new Date(row.created_at),
  user: { id: row.user_id, name: row.name, email: row.email, image: row.image },
});

function memberFilter(query: MemberListQuery): Record<string, unknown> {
  if (!query.filterField) return {};
  const value = query.filterValue ?? '';
  const typed = query.filterField === 'createdAt' ? new Date(value) : value;
  const operator = query.filterOperator ?? 'eq';
  const condition =
    operator === 'eq'
      ? typed
      : operator === 'contains'
        ? { $like: `%${value.replace(/[\\%_]/g, '\\$&')}%` }
        : { [`$${operator}`]: typed };
  return { [memberFields[query.filterField]]: condition };
}

/** A page of the organization's members (at most `defaultLimit` unless asked), and the total. */
export async function listMembers(
  em: EntityManager,
  organizationId: string,
  query: MemberListQuery,
  defaultLimit: number,
): Promise<{ rows: MemberRow[]; total: number }> {
  const where = { organization: organizationId, ...memberFilter(query) } as QBFilterQuery<Member>;
  const direction = query.sortDirection ?? 'asc';
  // Ties (and sorting by id itself) are settled by id, so pages never overlap.
  const orderBy = [{ [memberFields[query.sortBy ?? 'createdAt']]: direction }, { id: direction }];
  // Plain rows, no entities: building 100 members and users as entities cost about seven
  // times the rest of the request (bench/organizations.ts).
  const page = em
    .createQueryBuilder(Member, 'm')
    .select(['m.id', 'm.role', 'm.createdAt', 'm.organization'])
    .where(where)
    .leftJoin('m.user', 'u')
    .addSelect(['u.id as user_id', 'u.name', 'u.email', 'u.image'])
    .orderBy(orderBy)
    // Zero means "not given", as in Better Auth: the membership limit bounds a page.
    .limit(query.limit || defaultLimit)
    .offset(query.offset || 0);
  const [rows, total] = await Promise.all([
    page.execute<MemberRow[]>('all', false),
    em.count(Member, where),
  ]);
  return { rows, total };
}
