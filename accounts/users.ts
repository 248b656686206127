import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { revokeTokensOfCreator } from '../commerce/access-tokens/service.ts';
import { Account, Session, User } from '../db/entities/index.ts';
import { authError } from './errors.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import { createSession, type NewSession } from './sessions.ts';
import type { AuthSettings } from './settings.ts';
import { consumeToken, findToken } from './verification-tokens.ts';

type PasswordRules = AuthSettings['password'];

/** Better Auth's default limits, which Tollgate keeps. */
const defaultPasswordRules: PasswordRules = { minLength: 8, maxLength: 128 };

export function checkPasswordLength(password: string, rules: PasswordRules): void {
  if (password.length < rules.minLength) throw authError('invalid', 'PASSWORD_TOO_SHORT');
  if (password.length > rules.maxLength) throw authError('invalid', 'PASSWORD_TOO_LONG');
}

/**
 * Sets the password sign-in of `user` to `passwordHash`: updates the credential account, or
 * creates it for a user who so far signed in only through social providers.
 */
export async function storePassword(em: EntityManager, user: User, passwordHash: string) {
  const credential = await findCredential(em, user.id);
  if (credential) credential.password = passwordHash;
  else
    em.create(Account, {
      user,
      providerId: 'credential',
      accountId: user.id,
      password: passwordHash,
    });
}

/**
 * Every new user comes into being here, whichever way they sign up (email, social provider,
 * an admin): the one place where what belongs to a new user is added in the same transaction.
 * The matching commerce customer (external_id = user id) is to be created here too.
 */
export function createUser(
  em: EntityManager,
  fields: Pick<User, 'email' | 'name'> & Partial<Pick<User, 'image' | 'emailVerified' | 'role'>>,
): User {
  return em.create(User, { ...fields, email: fields.email.toLowerCase() });
}

/** The user's password account, or null when they only sign in through social providers. */
export function findCredential(em: EntityManager, userId: string): Promise<Account | null> {
  return em.findOne(Account, { user: userId, providerId: 'credential' });
}

/** The user's password account, when `password` is its password; else the refusal. */
export async function requirePassword(
  em: EntityManager,
  userId: string,
  password: string,
): Promise<Account> {
  const credential = await findCredential(em, userId);
  if (!credential?.password) throw authError('invalid', 'CREDENTIAL_ACCOUNT_NOT_FOUND');
  if (!(await verifyPassword(password, credential.password))) {
    throw authError('invalid', 'INVALID_PASSWORD');
  }
  return credential;
}

/**
 * Gives a password to a user who has none (one who signed up with a social provider). Better
 * Auth offers this only to server code, never over HTTP, and so does Tollgate.
 */
export async function setPassword(
  em: EntityManager,
  userId: string,
  newPassword: string,
  rules: PasswordRules = defaultPasswordRules,
): Promise<{ status: true }> {
  checkPasswordLength(newPassword, rules);
  const user = await em.findOne(User, userId);
  if (!user) throw authError('not_found', 'USER_NOT_FOUND');
  const credential = await findCredential(em, userId);
  if (credential?.password) throw authError('invalid', 'USER_ALREADY_HAS_A_PASSWORD');
  await storePassword(em, user, await hashPassword(newPassword));
  await em.flush();
  return { status: true };
}

/**
 * reset-password: the password becomes `newPassword` with the mailed token, which is used up.
 * Better Auth's revokeSessionsOnPasswordReset, always on: whoever knew the old password (or
 * held a session opened with it) is signed out with the same change.
 */
export async function resetPassword(
  em: EntityManager,
  rules: PasswordRules,
  token: string,
  newPassword: string,
): Promise<void> {
  checkPasswordLength(newPassword, rules);
  // Checked before hashing, so junk tokens cost no hash; used up below, with the change.
  const found = await findToken(em, 'passwordReset', token);
  if (!found || found.expired) throw authError('invalid', 'INVALID_TOKEN');
  const passwordHash = await hashPassword(newPassword);
  await em.transactional(async (tx) => {
    const userId = await consumeToken(tx, 'passwordReset', token);
    const user = userId ? await tx.findOne(User, userId) : null;
    if (!user) throw authError('invalid', 'INVALID_TOKEN');
    // An account made through a social provider gets its first password this way.
    await storePassword(tx, user, passwordHash);
    await tx.nativeDelete(Session, { user });
  });
}

export interface PasswordChange {
  currentPassword: string;
  newPassword: string;
  revokeOtherSessions?: boolean | undefined;
}

/**
 * change-password, checking the current password. With `revokeOtherSessions`, as in Better
 * Auth, every session ends, the caller's too, and the new session for the caller is answered.
 */
export async function changePassword(
  em: EntityManager,
  settings: AuthSettings,
  userId: string,
  change: PasswordChange,
  newSessionRequest: { rememberMe: boolean; ipAddress: string | null; userAgent: string | null },
): Promise<NewSession | null> {
  checkPasswordLength(change.newPassword, settings.password);
  const credential = await requirePassword(em, userId, change.currentPassword);
  const passwordHash = await hashPassword(change.newPassword);
  return em.transactional(async (tx) => {
    await tx.nativeUpdate(
      Account,
      { id: credential.id },
      { password: passwordHash, updatedAt: new Date() },
    );
    if (!change.revokeOtherSessions) return null;
    await tx.nativeDelete(Session, { user: userId });
    return createSession(tx, settings, tx.getReference(User, userId), newSessionRequest);
  });
}

/**
 * Deletes the user with their own deletion token (see deleteUser). Another user's token is
 * refused and, rolled back, stays good for its owner.
 */
export async function deleteUserWithToken(
  em: EntityManager,
  userId: string,
  token: string,
): Promise<void> {
  await em.transactional(async (tx) => {
    if ((await consumeToken(tx, 'accountDeletion', token)) !== userId) {
      throw authError('not_found', 'INVALID_TOKEN');
    }
    await deleteUser(tx, userId);
  });
}

/**
 * Deletes the user: the access tokens they created are revoked; sessions, accounts, memberships
 * and API keys go with the user (foreign keys cascade). One transaction, nested in the caller's.
 */
export async function deleteUser(em: EntityManager, userId: string): Promise<void> {
  await em.transactional(async (tx) => {
    await revokeTokensOfCreator(tx, userId);
    await tx.nativeDelete(User, { id: userId });
  });
}

/** Saves a new address, which starts unverified; two accounts never share one. */
export async function moveEmail(em: EntityManager, user: User, newEmail: string): Promise<void> {
  user.email = newEmail;
  user.emailVerified = false;
  try {
    await em.flush();
  } catch (error) {
    // Another account took the address since it was checked.
    if (error instanceof UniqueConstraintViolationException) {
      throw authError('invalid', 'COULDNT_UPDATE_YOUR_EMAIL');
    }
    throw error;
  }
}

export async function markEmailVerified(em: EntityManager, user: User): Promise<void> {
  user.emailVerified = true;
  await em.flush();
}
