import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import { revokeTokensOfCreator } from '../commerce/access-tokens/service.ts';
import { Session, User } from '../db/entities/index.ts';
import { defaultRole, joinRoles } from './admin-permissions.ts';
import { authError } from './errors.ts';
import { hashPassword } from './passwords.ts';
import type { AuthSettings } from './settings.ts';
import { checkPasswordLength, createUser, deleteUser, storePassword } from './users.ts';

// What Better Auth's admin plugin does to users: create, read, update, list, ban, remove.

// User ids are UUIDs; anything else names no user (and must not reach a uuid column).
export const isUserId = (value: string) =>
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);

export function findUser(em: EntityManager, id: string): Promise<User | null> {
  return isUserId(id) ? em.findOne(User, { id: id.toLowerCase() }) : Promise.resolve(null);
}

export async function requireUser(em: EntityManager, id: string): Promise<User> {
  const user = await findUser(em, id);
  if (!user) throw authError('not_found', 'USER_NOT_FOUND');
  return user;
}

const alreadyExists = () => authError('invalid', 'USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL');

export interface NewUser {
  email: string;
  password: string;
  name: string;
  role?: string | string[] | undefined;
  emailVerified?: boolean | undefined;
  image?: string | null | undefined;
}

/** create-user: a user who signs in with `password`; an address already taken is refused. */
export async function createUserWithPassword(em: EntityManager, input: NewUser): Promise<User> {
  const email = input.email.toLowerCase();
  if (await em.count(User, { email })) throw alreadyExists();
  const passwordHash = await hashPassword(input.password);
  try {
    return await em.transactional(async (tx) => {
      const created = createUser(tx, {
        email,
        name: input.name,
        role: input.role === undefined ? defaultRole : joinRoles(input.role),
        emailVerified: input.emailVerified ?? false,
        image: input.image ?? null,
      });
      await storePassword(tx, created, passwordHash);
      return created;
    });
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw alreadyExists();
    throw error;
  }
}

export interface UserChanges {
  name?: string | undefined;
  email?: string | undefined;
  image?: string | null | undefined;
  emailVerified?: boolean | undefined;
  role?: string | string[] | undefined;
}

/** update-user: the given fields change; another user's address is refused. */
export async function updateUser(
  em: EntityManager,
  userId: string,
  changes: UserChanges,
): Promise<User> {
  const user = await requireUser(em, userId);
  const { email, role, ...profile } = changes;
  em.assign(user, {
    ...profile,
    ...(email === undefined ? {} : { email: email.toLowerCase() }),
    ...(role === undefined ? {} : { role: joinRoles(role) }),
  });
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw alreadyExists();
    throw error;
  }
  return user;
}

export async function setUserRole(
  em: EntityManager,
  userId: string,
  role: string | string[],
): Promise<User> {
  const user = await requireUser(em, userId);
  user.role = joinRoles(role);
  await em.flush();
  return user;
}

/** set-user-password: a user who signed up through a provider gets a password sign-in too. */
export async function setUserPassword(
  em: EntityManager,
  rules: AuthSettings['password'],
  userId: string,
  newPassword: string,
): Promise<void> {
  checkPasswordLength(newPassword, rules);
  const user = await requireUser(em, userId);
  const password = await hashPassword(newPassword);
  await storePassword(em, user, password);
  await em.flush();
}

export interface Ban {
  userId: string;
  banReason?: string | undefined;
  banExpiresIn?: number | undefined;
}

/**
 * ban-user: the ban, the end of the user's sessions and of the access tokens they created
 * happen together or not at all. Nobody bans themselves.
 */
export function banUser(em: EntityManager, adminId: string, ban: Ban): Promise<User> {
  return em.transactional(async (tx) => {
    const banned = await requireUser(tx, ban.userId);
    if (banned.id === adminId) throw authError('invalid', 'YOU_CANNOT_BAN_YOURSELF');
    tx.assign(banned, {
      banned: true,
      banReason: ban.banReason || 'No reason',
      banExpires: ban.banExpiresIn ? new Date(Date.now() + ban.banExpiresIn * 1000) : null,
    });
    await tx.nativeDelete(Session, { user: banned });
    await revokeTokensOfCreator(tx, banned.id);
    return banned;
  });
}

export async function unbanUser(em: EntityManager, userId: string): Promise<User> {
  const user = await requireUser(em, userId);
  em.assign(user, { banned: false, banReason: null, banExpires: null });
  await em.flush();
  return user;
}

/** remove-user: the user and everything of theirs go; nobody removes themselves. */
export async function removeUser(em: EntityManager, adminId: string, userId: string) {
  if (userId.toLowerCase() === adminId) throw authError('invalid', 'YOU_CANNOT_REMOVE_YOURSELF');
  await em.transactional(async (tx) => {
    const user = await requireUser(tx, userId);
    await deleteUser(tx, user.id);
  });
}

/** The user columns list-users can sort and filter on, by the kind of value each holds. */
export const userFieldKinds = {
  id: 'id',
  email: 'text',
  name: 'text',
  image: 'text',
  role: 'text',
  banReason: 'text',
  emailVerified: 'boolean',
  banned: 'boolean',
  banExpires: 'date',
  createdAt: 'date',
  updatedAt: 'date',
} as const;
export type UserField = keyof typeof userFieldKinds;

/** A filter value read as the field's kind, or undefined when it cannot be one. */
export function filterValueOf(field: UserField, raw: string): string | boolean | Date | undefined {
  switch (userFieldKinds[field]) {
    case 'boolean':
      return raw === 'true' ? true : raw === 'false' ? false : undefined;
    case 'date': {
      const date = new Date(raw);
      return Number.isNaN(date.getTime()) ? undefined : date;
    }
    case 'id':
      return isUserId(raw) ? raw.toLowerCase() : undefined;
    case 'text':
      return raw;
  }
}

/** list-users' query, as Better Auth's client sends it (values checked by the route). */
export interface UserListQuery {
  searchValue?: string | undefined;
  searchField?: 'email' | 'name' | undefined;
  searchOperator?: 'contains' | 'starts_with' | 'ends_with' | undefined;
  limit?: number | undefined;
  offset?: number | undefined;
  sortBy?: UserField | undefined;
  sortDirection?: 'asc' | 'desc' | undefined;
  filterField?: UserField | undefined;
  filterValue?: string | undefined;
  filterOperator?: 'eq' | 'ne' | 'lt' | 'lte' | 'gt' | 'gte' | 'contains' | undefined;
}

const likePatterns = {
  contains: (value: string) => `%${value}%`,
  starts_with: (value: string) => `${value}%`,
  ends_with: (value: string) => `%${value}`,
} as const;
const comparisons = {
  eq: '$eq',
  ne: '$ne',
  lt: '$lt',
  lte: '$lte',
  gt: '$gt',
  gte: '$gte',
} as const;

// The searched text is literal: its own % and _ are not wildcards.
const escapeLike = (value: string) => value.replace(/[\\%_]/g, '\\$&');

/** list-users' search and filter as a query; search ignores case (Better Auth's LIKE does not). */
function listUsersWhere(query: UserListQuery): FilterQuery<User> {
  const conditions: FilterQuery<User>[] = [];
  if (query.searchValue) {
    const pattern = likePatterns[query.searchOperator ?? 'contains'];
    const field = query.searchField ?? 'email';
    conditions.push({ [field]: { $ilike: pattern(escapeLike(query.searchValue)) } });
  }
  if (query.filterValue) {
    const field = query.filterField ?? 'email';
    const operator = query.filterOperator ?? 'eq';
    const value = filterValueOf(field, query.filterValue);
    conditions.push(
      operator === 'contains'
        ? { [field]: { $ilike: likePatterns.contains(escapeLike(query.filterValue)) } }
        : { [field]: { [comparisons[operator]]: value } },
    );
  }
  return { $and: conditions };
}

/** A page of users and how many match in all. */
export function listUsers(em: EntityManager, query: UserListQuery): Promise<[User[], number]> {
  const direction = query.sortDirection ?? 'asc';
  // The id breaks ties, so pages never overlap or skip a user.
  const orderBy = query.sortBy
    ? { [query.sortBy]: direction, id: direction }
    : { createdAt: 'asc', id: 'asc' };
  return em.findAndCount(User, listUsersWhere(query), {
    orderBy,
    // Better Auth's SQL adapters answer 100 users when no limit is asked for.
    limit: query.limit ?? 100,
    offset: query.offset,
  });
}
