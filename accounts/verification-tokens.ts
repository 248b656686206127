import { randomInt } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../config/env.ts';
import { Verification } from '../db/entities/index.ts';
import { hashToken } from '../domain/token-hashes.ts';

const alphanumeric = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const lowerAlphanumeric = '0123456789abcdefghijklmnopqrstuvwxyz';

/**
 * The tokens /api/auth mails, with Better Auth's lengths and alphabets (Better Auth signs
 * email-verification tokens as JWTs; here every kind is a random token). Lifetimes: below.
 */
export const tokenKinds = {
  emailVerification: {
    prefix: 'email-verification',
    length: 32,
    alphabet: alphanumeric,
  },
  passwordReset: {
    prefix: 'reset-password',
    length: 24,
    alphabet: alphanumeric,
  },
  accountDeletion: {
    prefix: 'delete-account',
    length: 32,
    alphabet: lowerAlphanumeric,
  },
} as const;

export type TokenKind = keyof typeof tokenKinds;

/**
 * How long each kind lives, in seconds: email verification and password reset as configured
 * (an hour unless set), account deletion Better Auth's day.
 */
export function tokenLifetimes(
  configured: Config['auth']['tokenLifetimes'],
): Record<TokenKind, number> {
  return {
    emailVerification: configured.emailVerificationSeconds,
    passwordReset: configured.passwordResetSeconds,
    accountDeletion: 86_400,
  };
}

// The row is found by its indexed identifier: the kind, then the token's hash.
const identifierOf = (kind: TokenKind, token: string) =>
  `${tokenKinds[kind].prefix}:${hashToken(token)}`;

function randomToken(length: number, alphabet: string): string {
  // randomInt draws without modulo bias.
  return Array.from({ length }, () => alphabet[randomInt(alphabet.length)]).join('');
}

/**
 * Makes a token of `kind` that stands for `subject` (what using it acts on, such as a user id)
 * and lives `lifetimeSeconds`, and stages its row in `em` (the caller flushes). Answers the
 * token, which only the mail holds.
 */
export function issueToken(
  em: EntityManager,
  kind: TokenKind,
  subject: string,
  lifetimeSeconds: number,
): string {
  const { length, alphabet } = tokenKinds[kind];
  const token = randomToken(length, alphabet);
  em.create(Verification, {
    identifier: identifierOf(kind, token),
    value: subject,
    expiresAt: new Date(Date.now() + lifetimeSeconds * 1000),
  });
  return token;
}

export interface FoundToken {
  subject: string;
  expired: boolean;
}

/** Looks a token up without using it; null when it was never issued (or was used up). */
export async function findToken(
  em: EntityManager,
  kind: TokenKind,
  token: string,
): Promise<FoundToken | null> {
  const row = await em.findOne(Verification, { identifier: identifierOf(kind, token) });
  return row ? { subject: row.value, expired: row.expiresAt.getTime() <= Date.now() } : null;
}

/**
 * Uses up a single-use token: answers its subject, or null when it is unknown, expired or already
 * used. Call it inside the transaction that acts on the token, so a rollback gives it back.
 */
export async function consumeToken(
  em: EntityManager,
  kind: TokenKind,
  token: string,
): Promise<string | null> {
  const row = await em.findOne(Verification, { identifier: identifierOf(kind, token) });
  if (!row || row.expiresAt.getTime() <= Date.now()) return null;
  // Two requests racing with one token: the second delete waits for the first and finds nothing.
  const deleted = await em.nativeDelete(Verification, { id: row.id });
  return deleted === 1 ? row.value : null;
}
