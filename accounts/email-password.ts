import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Account, type User } from '../db/entities/index.ts';
import { authError, bannedUserError } from './errors.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import { createSession, findUserByEmail, isBanned, type NewSession } from './sessions.ts';
import type { AuthSettings } from './settings.ts';
import { checkPasswordLength, createUser, storePassword } from './users.ts';

/** Compared against when the account does not exist, so that answer takes as long as a real one. */
const decoyPasswordHash = hashPassword('decoy password for accounts that do not exist');

/** Where a new session is opened from, and whether it outlives the browser session. */
export interface SessionRequest {
  rememberMe: boolean;
  ipAddress: string | null;
  userAgent: string | null;
}

export interface SignUp {
  email: string;
  name: string;
  password: string;
  image?: string | null | undefined;
}

/**
 * sign-up/email: the user, the password and (given `session`) the first session exist
 * together or not at all; an address already taken is refused.
 */
export async function signUp(
  em: EntityManager,
  settings: AuthSettings,
  input: SignUp,
  session: SessionRequest | null,
): Promise<{ user: User; session: NewSession | undefined }> {
  checkPasswordLength(input.password, settings.password);
  const email = input.email.toLowerCase();
  const alreadyExists = () => authError('unprocessable', 'USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL');
  if (await findUserByEmail(em, email)) throw alreadyExists();
  const passwordHash = await hashPassword(input.password);
  try {
    return await em.transactional(async (tx) => {
      const user = createUser(tx, { email, name: input.name, image: input.image ?? null });
      await storePassword(tx, user, passwordHash);
      return { user, session: session ? createSession(tx, settings, user, session) : undefined };
    });
  } catch (error) {
    // Two sign-ups with one email raced past the check above: the unique index decides.
    if (error instanceof UniqueConstraintViolationException) throw alreadyExists();
    throw error;
  }
}

/**
 * The user whose password `password` is, or null: one answer, taking as long, for an unknown
 * email, an account without a password and a wrong password.
 */
export async function userWithPassword(
  em: EntityManager,
  email: string,
  password: string,
): Promise<User | null> {
  const user = await findUserByEmail(em, email);
  const credential = user ? await em.findOne(Account, { user, providerId: 'credential' }) : null;
  const passwordMatches = await verifyPassword(
    password,
    credential?.password ?? (await decoyPasswordHash),
  );
  return user && credential?.password && passwordMatches ? user : null;
}

/**
 * A new session for a user who proved who they are, unless they are banned. A ban whose time
 * has run out is lifted here, as Better Auth lifts it at the next sign-in.
 */
export async function signIn(
  em: EntityManager,
  settings: AuthSettings,
  user: User,
  request: SessionRequest,
): Promise<NewSession> {
  if (isBanned(user)) throw bannedUserError();
  if (user.banned) Object.assign(user, { banned: false, banReason: null, banExpires: null });
  const created = createSession(em, settings, user, request);
  await em.flush();
  return created;
}
