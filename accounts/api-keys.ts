import { randomBytes } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sha256 } from '@oslojs/crypto/sha2';
import { encodeHexLowerCase } from '@oslojs/encoding';
import { AppError, type Refusal } from '../core/errors.ts';
import { ApiKey, type User } from '../db/entities/index.ts';
import { isUuid } from '../db/ids.ts';
import { type AuthMessage, authError, authMessages, codeFromMessage } from './errors.ts';

/** Better Auth's apiKey plugin defaults (1.3.34), metadata switched on. */
export const apiKeyDefaults = {
  /** Random letters after the prefix; a shorter presented key is refused unread. */
  keyLength: 64,
  /** Characters of the whole key (prefix included) kept in `start` for display. */
  startLength: 6,
  nameLength: { min: 1, max: 32 },
  prefixLength: { min: 1, max: 32 },
  expiresInDays: { min: 1, max: 365 },
  rateLimit: { timeWindowMs: 24 * 60 * 60 * 1000, max: 10 },
} as const;

/** `{ resource: [action, ...] }`, as Better Auth's access control writes permissions. */
export type Permissions = Record<string, string[]>;

/** What a key is created with; the routes let clients set only name, expiresIn, prefix, metadata. */
export interface NewApiKey {
  name?: string;
  /** Seconds from now. */
  expiresIn?: number | null;
  prefix?: string;
  /** Uses allowed; null or absent: unlimited. */
  remaining?: number | null;
  metadata?: unknown;
  refillAmount?: number;
  /** Milliseconds after the last refill (or creation) when `remaining` is reset to refillAmount. */
  refillInterval?: number;
  rateLimitEnabled?: boolean;
  /** Milliseconds. */
  rateLimitTimeWindow?: number;
  rateLimitMax?: number;
  permissions?: Permissions;
}

export interface ApiKeyChanges {
  name?: string;
  enabled?: boolean;
  /** Seconds from now; null removes the expiry. */
  expiresIn?: number | null;
  metadata?: unknown;
  remaining?: number;
  refillAmount?: number;
  refillInterval?: number;
  rateLimitEnabled?: boolean;
  rateLimitTimeWindow?: number;
  rateLimitMax?: number;
  permissions?: Permissions | null;
}

/**
 * A presented key refused, with Better Auth's status and code (some codes are set apart from
 * the message, as Better Auth sets them). Callers answer it, or fold it into their own envelope.
 */
export class ApiKeyRefusal extends AppError {
  override name = 'ApiKeyRefusal';
}

function refusal(
  kind: Refusal,
  message: AuthMessage,
  code = codeFromMessage(authMessages[message]),
  details?: Record<string, unknown>,
) {
  return new ApiKeyRefusal(kind, code, authMessages[message], details);
}

const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Better Auth's key shape: the prefix, then 64 random letters (from the CSPRNG, unbiased). */
export function generateApiKey(prefix = ''): string {
  const { keyLength } = apiKeyDefaults;
  const chosen: string[] = [];
  while (chosen.length < keyLength) {
    for (const byte of randomBytes(keyLength)) {
      // 208 = 4 × 52: bytes from 208 up would favour the first letters, so they are skipped.
      if (byte < 208 && chosen.length < keyLength) chosen.push(letters.charAt(byte % 52));
    }
  }
  return prefix + chosen.join('');
}

/** What the table keeps of a key: its hex SHA-256, useless to anyone who reads the table. */
export function hashApiKey(key: string): string {
  return encodeHexLowerCase(sha256(new TextEncoder().encode(key)));
}

const parseJson = (text: string | null | undefined): unknown => (text ? JSON.parse(text) : null);

/** A key as Better Auth's client sees it: never its hash; metadata and permissions as objects. */
export function apiKeyJson(apiKey: ApiKey) {
  return {
    id: apiKey.id,
    name: apiKey.name ?? null,
    start: apiKey.start ?? null,
    prefix: apiKey.prefix ?? null,
    userId: apiKey.user.id,
    refillInterval: apiKey.refillInterval ?? null,
    refillAmount: apiKey.refillAmount ?? null,
    lastRefillAt: apiKey.lastRefillAt ?? null,
    enabled: apiKey.enabled,
    rateLimitEnabled: apiKey.rateLimitEnabled,
    rateLimitTimeWindow: apiKey.rateLimitTimeWindow ?? null,
    rateLimitMax: apiKey.rateLimitMax ?? null,
    requestCount: apiKey.requestCount,
    remaining: apiKey.remaining ?? null,
    lastRequest: apiKey.lastRequest ?? null,
    expiresAt: apiKey.expiresAt ?? null,
    createdAt: apiKey.createdAt,
    updatedAt: apiKey.updatedAt,
    metadata: parseJson(apiKey.metadata),
    permissions: parseJson(apiKey.permissions) as Permissions | null,
  };
}

function checkName(name: string) {
  const { min, max } = apiKeyDefaults.nameLength;
  if (name.length < min || name.length > max)
    throw authError('invalid', 'API_KEY_INVALID_NAME_LENGTH');
}

function expiryIn(seconds: number): Date {
  const days = seconds / 86_400;
  const { min, max } = apiKeyDefaults.expiresInDays;
  if (days < min) throw authError('invalid', 'API_KEY_EXPIRES_IN_TOO_SMALL');
  if (days > max) throw authError('invalid', 'API_KEY_EXPIRES_IN_TOO_LARGE');
  return new Date(Date.now() + seconds * 1000);
}

function metadataText(metadata: unknown): string {
  if (typeof metadata !== 'object') throw authError('invalid', 'API_KEY_INVALID_METADATA_TYPE');
  return JSON.stringify(metadata);
}

/** A refill needs both its amount and its interval (Better Auth's messages, swapped as there). */
function checkRefillPair(amountGiven: boolean, intervalGiven: boolean) {
  if (amountGiven && !intervalGiven) {
    throw authError('invalid', 'API_KEY_REFILL_AMOUNT_WITHOUT_INTERVAL');
  }
  if (intervalGiven && !amountGiven) {
    throw authError('invalid', 'API_KEY_REFILL_INTERVAL_WITHOUT_AMOUNT');
  }
}

/** Creates a key for `user`; the whole key exists only in the answer, the table keeps its hash. */
export async function createApiKey(
  em: EntityManager,
  user: User,
  input: NewApiKey,
): Promise<{ apiKey: ApiKey; key: string }> {
  // Checked in Better Auth's order, so the first complaint is the same.
  const metadata = input.metadata ? metadataText(input.metadata) : null;
  checkRefillPair(Boolean(input.refillAmount), Boolean(input.refillInterval));
  const expiresAt = input.expiresIn ? expiryIn(input.expiresIn) : null;
  if (input.prefix) {
    const { min, max } = apiKeyDefaults.prefixLength;
    if (input.prefix.length < min || input.prefix.length > max) {
      throw authError('invalid', 'API_KEY_INVALID_PREFIX_LENGTH');
    }
  }
  if (input.name) checkName(input.name);

  const key = generateApiKey(input.prefix);
  const apiKey = em.create(ApiKey, {
    user,
    name: input.name ?? null,
    prefix: input.prefix ?? null,
    start: key.slice(0, apiKeyDefaults.startLength),
    key: hashApiKey(key),
    enabled: true,
    expiresAt,
    remaining: input.remaining ?? null,
    refillAmount: input.refillAmount ?? null,
    refillInterval: input.refillInterval ?? null,
    lastRefillAt: null,
    rateLimitEnabled: input.rateLimitEnabled ?? true,
    rateLimitTimeWindow: input.rateLimitTimeWindow ?? apiKeyDefaults.rateLimit.timeWindowMs,
    rateLimitMax: input.rateLimitMax ?? apiKeyDefaults.rateLimit.max,
    requestCount: 0,
    lastRequest: null,
    permissions: input.permissions ? JSON.stringify(input.permissions) : null,
    metadata,
  });
  await em.flush();
  return { apiKey, key };
}

/** Applies `changes` to a key (flushed here); nothing given answers NO_VALUES_TO_UPDATE. */
export async function updateApiKey(
  em: EntityManager,
  apiKey: ApiKey,
  changes: ApiKeyChanges,
): Promise<void> {
  const values: Partial<ApiKey> = {};
  if (changes.name !== undefined) {
    checkName(changes.name);
    values.name = changes.name;
  }
  if (changes.enabled !== undefined) values.enabled = changes.enabled;
  if (changes.expiresIn !== undefined) {
    values.expiresAt = changes.expiresIn === null ? null : expiryIn(changes.expiresIn);
  }
  if (changes.metadata !== undefined) values.metadata = metadataText(changes.metadata);
  if (changes.remaining !== undefined) values.remaining = changes.remaining;
  if (changes.refillAmount !== undefined || changes.refillInterval !== undefined) {
    checkRefillPair(changes.refillAmount !== undefined, changes.refillInterval !== undefined);
    values.refillAmount = changes.refillAmount;
    values.refillInterval = changes.refillInterval;
  }
  if (changes.rateLimitEnabled !== undefined) values.rateLimitEnabled = changes.rateLimitEnabled;
  if (changes.rateLimitTimeWindow !== undefined) {
    values.rateLimitTimeWindow = changes.rateLimitTimeWindow;
  }
  if (changes.rateLimitMax !== undefined) values.rateLimitMax = changes.rateLimitMax;
  if (changes.permissions !== undefined) {
    values.permissions = changes.permissions ? JSON.stringify(changes.permissions) : null;
  }
  if (Object.keys(values).length === 0) throw authError('invalid', 'API_KEY_NO_VALUES_TO_UPDATE');
  Object.assign(apiKey, values);
  await em.flush();
}

/** Better Auth's rule: every action asked for, on every resource asked for; nothing asked fails. */
function grants(granted: Permissions | null, required: Permissions): boolean {
  const asked = Object.entries(required);
  return (
    granted !== null &&
    asked.length > 0 &&
    asked.every(([resource, actions]) => {
      const allowed = Object.hasOwn(granted, resource) ? granted[resource] : undefined;
      return allowed !== undefined && actions.every((action) => allowed.includes(action));
    })
  );
}

type Usage =
  | { exhausted: true; deleteKey: boolean }
  | { exhausted: false; remaining: number | null; lastRefillAt: Date | null };

/**
 * One use of a key's allowance: a key with uses left spends one, after a refill when the refill
 * interval has passed since the last refill (or creation). A key spent for good, with no refill
 * to wait for, is to be deleted.
 */
function spendOneUse(apiKey: ApiKey, now: Date): Usage {
  const lastRefillAt = apiKey.lastRefillAt ?? null;
  if (apiKey.remaining == null) return { exhausted: false, remaining: null, lastRefillAt };
  if (apiKey.remaining === 0 && apiKey.refillAmount == null) {
    return { exhausted: true, deleteKey: true };
  }
  let remaining = apiKey.remaining;
  let refilledAt = lastRefillAt;
  const { refillAmount, refillInterval } = apiKey;
  const since = now.getTime() - (lastRefillAt ?? apiKey.createdAt).getTime();
  if (refillAmount && refillInterval && since > refillInterval) {
    remaining = refillAmount;
    refilledAt = now;
  }
  if (remaining === 0) return { exhausted: true, deleteKey: false };
  return { exhausted: false, remaining: remaining - 1, lastRefillAt: refilledAt };
}

type RateLimit =
  | { limited: true; tryAgainInMs: number }
  | { limited: false; changes: Partial<Pick<ApiKey, 'lastRequest' | 'requestCount'>> };

/**
 * Better Auth's per-key limit: uses are counted while each follows the previous one within the
 * window (the window restarts only after a quiet spell longer than itself); past the maximum
 * the key is refused until the window since the last counted use has passed.
 */
function countRequest(apiKey: ApiKey, now: Date): RateLimit {
  if (!apiKey.rateLimitEnabled) return { limited: false, changes: { lastRequest: now } };
  const { rateLimitTimeWindow: window, rateLimitMax: max } = apiKey;
  if (window == null || max == null) return { limited: false, changes: {} };
  const sinceLast = apiKey.lastRequest ? now.getTime() - apiKey.lastRequest.getTime() : Infinity;
  if (sinceLast > window) return { limited: false, changes: { lastRequest: now, requestCount: 1 } };
  if (apiKey.requestCount >= max) {
    return { limited: true, tryAgainInMs: Math.ceil(window - sinceLast) };
  }
  return { limited: false, changes: { lastRequest: now, requestCount: apiKey.requestCount + 1 } };
}

/**
 * Checks a presented key and spends one use of it: the answer is the key after this use, or an
 * ApiKeyRefusal thrown with Better Auth's status and code (those of a key presented in the
 * x-api-key header). The row is locked for the check, so concurrent uses never overspend
 * `remaining` or the rate limit. A refused use spends nothing; expired keys and keys spent for
 * good are deleted, as Better Auth deletes them.
 */
export async function verifyApiKey(
  em: EntityManager,
  key: string,
  required?: Permissions,
): Promise<ApiKey> {
  if (key.length < apiKeyDefaults.keyLength) throw refusal('forbidden', 'API_KEY_INVALID');
  const outcome = await em.transactional(async (tx) => {
    const apiKey = await tx.findOne(
      ApiKey,
      { key: hashApiKey(key) },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (!apiKey) return refusal('unauthenticated', 'API_KEY_INVALID');
    if (!apiKey.enabled) return refusal('unauthenticated', 'API_KEY_DISABLED', 'KEY_DISABLED');
    const now = new Date();
    if (apiKey.expiresAt && apiKey.expiresAt < now) {
      tx.remove(apiKey);
      return refusal('unauthenticated', 'API_KEY_EXPIRED', 'KEY_EXPIRED');
    }
    if (required && !grants(parseJson(apiKey.permissions) as Permissions | null, required)) {
      return refusal('unauthenticated', 'API_KEY_NOT_FOUND', 'KEY_NOT_FOUND');
    }
    const usage = spendOneUse(apiKey, now);
    if (usage.exhausted) {
      if (usage.deleteKey) tx.remove(apiKey);
      return refusal('rate_limited', 'API_KEY_USAGE_EXCEEDED', 'USAGE_EXCEEDED');
    }
    const rateLimit = countRequest(apiKey, now);
    if (rateLimit.limited) {
      return refusal('unauthenticated', 'API_KEY_RATE_LIMITED', 'RATE_LIMITED', {
        tryAgainIn: rateLimit.tryAgainInMs,
      });
    }
    Object.assign(apiKey, rateLimit.changes, {
      remaining: usage.remaining,
      lastRefillAt: usage.lastRefillAt,
    });
    return apiKey;
  });
  if (outcome instanceof ApiKeyRefusal) throw outcome;
  return outcome;
}

/** Deletes every key whose expiry has passed; answers how many. */
/** Another user's key answers as a missing one, so keys cannot be probed across accounts. */
export async function findOwnApiKey(em: EntityManager, id: string, owner: User): Promise<ApiKey> {
  const apiKey = isUuid(id) ? await em.findOne(ApiKey, { id, user: owner }) : null;
  if (!apiKey) throw authError('not_found', 'API_KEY_NOT_FOUND');
  return apiKey;
}

export async function deleteApiKey(em: EntityManager, id: string, owner: User): Promise<void> {
  await em.remove(await findOwnApiKey(em, id, owner)).flush();
}

export function listApiKeys(em: EntityManager, owner: User): Promise<ApiKey[]> {
  return em.find(ApiKey, { user: owner }, { orderBy: { createdAt: 'asc', id: 'asc' } });
}

export function deleteExpiredApiKeys(em: EntityManager): Promise<number> {
  return em.nativeDelete(ApiKey, { expiresAt: { $lt: new Date() } });
}

let lastSweepAt = 0;

/**
 * Better Auth's housekeeping after each API-key call: expired keys are deleted, at most once
 * every 10 seconds per process.
 */
export async function sweepExpiredApiKeys(em: EntityManager): Promise<void> {
  if (Date.now() - lastSweepAt < 10_000) return;
  lastSweepAt = Date.now();
  await deleteExpiredApiKeys(em);
}
