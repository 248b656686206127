import { z } from 'zod';
import { dateTimeWireSchema } from '../commerce/wire.ts';
import type { apiKeyJson } from './api-keys.ts';
import type { apiKeySessionJson, sessionJson, signedInUserJson, userJson } from './sessions.ts';

/**
 * What /api/auth answers, as Better Auth 1.3.x's client reads it: camelCase, dates as ISO
 * strings. The builders in sessions.ts and api-keys.ts produce these; the OpenAPI document and
 * api/auth/openapi.test.ts hold the real answers against them.
 */

/** The seven fields sign-up and sign-in answer with (signedInUserJson). */
export const signedInUserWireSchema = z
  .strictObject({
    id: z.string(),
    email: z.string(),
    name: z.string(),
    image: z.string().nullable(),
    emailVerified: z.boolean(),
    createdAt: dateTimeWireSchema,
    updatedAt: dateTimeWireSchema,
  })
  .meta({ id: 'SignedInUser' });

/** A user with the admin plugin's fields (userJson): get-session and the admin routes. */
export const userWireSchema = signedInUserWireSchema
  .extend({
    role: z.string(),
    banned: z.boolean(),
    banReason: z.string().nullable(),
    banExpires: dateTimeWireSchema.nullable(),
  })
  .meta({ id: 'User' });

const sessionFields = {
  id: z.string(),
  /** The caller's own session shows its token; any other, its id (only hashes are stored). */
  token: z.string(),
  userId: z.string(),
  expiresAt: dateTimeWireSchema,
  ipAddress: z.string().nullable(),
  userAgent: z.string().nullable(),
  createdAt: dateTimeWireSchema,
  updatedAt: dateTimeWireSchema,
};

/** A session with the admin and organization plugins' fields (sessionJson). */
export const sessionWireSchema = z
  .strictObject({
    ...sessionFields,
    impersonatedBy: z.string().nullable(),
    activeOrganizationId: z.string().nullable(),
    activeTeamId: z.string().nullable(),
  })
  .meta({ id: 'Session' });

/** The session an x-api-key header stands for: only the core fields (apiKeySessionJson). */
export const apiKeySessionWireSchema = z.strictObject(sessionFields).meta({ id: 'ApiKeySession' });

/** get-session's answer: the session and its user, or null when signed out. */
export const sessionWithUserWireSchema = z
  .strictObject({
    session: z.union([sessionWireSchema, apiKeySessionWireSchema]),
    user: userWireSchema,
  })
  .nullable();

/** sign-up, change-password: the new session's token (null when none was opened) and the user. */
export const tokenAndUserWireSchema = z.strictObject({
  token: z.string().nullable(),
  user: signedInUserWireSchema,
});

const permissions = z.record(z.string(), z.array(z.string()));

/** An API key, never its hash (apiKeyJson); numbers of milliseconds or uses are integers. */
export const apiKeyWireSchema = z
  .strictObject({
    id: z.string(),
    name: z.string().nullable(),
    start: z.string().nullable(),
    prefix: z.string().nullable(),
    userId: z.string(),
    refillInterval: z.int().nullable(),
    refillAmount: z.int().nullable(),
    lastRefillAt: dateTimeWireSchema.nullable(),
    enabled: z.boolean(),
    rateLimitEnabled: z.boolean(),
    rateLimitTimeWindow: z.int().nullable(),
    rateLimitMax: z.int().nullable(),
    requestCount: z.int(),
    remaining: z.int().nullable(),
    lastRequest: dateTimeWireSchema.nullable(),
    expiresAt: dateTimeWireSchema.nullable(),
    createdAt: dateTimeWireSchema,
    updatedAt: dateTimeWireSchema,
    metadata: z.unknown().nullable(),
    permissions: permissions.nullable(),
  })
  .meta({ id: 'ApiKey' });

/** api-key/create: the only answer that holds the whole key. */
export const createdApiKeyWireSchema = apiKeyWireSchema.extend({ key: z.string() });

/** api-key/verify: a refused key is an answer too, with its reason. */
export const apiKeyVerificationWireSchema = z.strictObject({
  valid: z.boolean(),
  error: z.strictObject({ message: z.string(), code: z.string() }).nullable(),
  key: apiKeyWireSchema.nullable(),
});

/** A provider account of the signed-in user (list-accounts). */
export const providerAccountWireSchema = z
  .strictObject({
    id: z.string(),
    providerId: z.string(),
    createdAt: dateTimeWireSchema,
    updatedAt: dateTimeWireSchema,
    accountId: z.string(),
    scopes: z.array(z.string()),
  })
  .meta({ id: 'ProviderAccount' });

/** get-access-token: the account's access token, renewed first when about to expire. */
export const accessTokenWireSchema = z.strictObject({
  accessToken: z.string(),
  accessTokenExpiresAt: dateTimeWireSchema.optional(),
  scopes: z.array(z.string()),
  idToken: z.string().optional(),
});

/** refresh-token: what the provider answered the refresh with. */
export const refreshedTokensWireSchema = z.strictObject({
  accessToken: z.string(),
  refreshToken: z.string().optional(),
  tokenType: z.string().optional(),
  scopes: z.array(z.string()),
  idToken: z.string().optional(),
  accessTokenExpiresAt: dateTimeWireSchema.optional(),
});

/** account-info: the provider's user mapped as Better Auth maps it, and its own profile. */
export const providerUserInfoWireSchema = z
  .strictObject({
    user: z.object({
      id: z.union([z.string(), z.number()]),
      name: z.string().optional(),
      email: z.string().nullable().optional(),
      image: z.string().nullable().optional(),
      emailVerified: z.boolean(),
    }),
    data: z.record(z.string(), z.unknown()),
  })
  .nullable();

/** The plain acknowledgements Better Auth answers with. */
export const statusWireSchema = z.strictObject({ status: z.literal(true) });
export const successWireSchema = z.strictObject({ success: z.literal(true) });
export const permissionCheckWireSchema = z.strictObject({
  error: z.null(),
  success: z.boolean(),
});

/** What a builder's answer becomes in JSON: its dates ISO strings (entity brands stay on). */
export type OnTheWire<T> = T extends Date
  ? string
  : T extends string | number | boolean
    ? T
    : T extends readonly (infer Item)[]
      ? OnTheWire<Item>[]
      : T extends object
        ? { [Key in keyof T]: OnTheWire<T[Key]> }
        : T;

type KeysDiffer<A, B> = Exclude<keyof A, keyof B> | Exclude<keyof B, keyof A>;

/**
 * True when every answer of the builder fits the schema and both name the same fields, else
 * false (a field added to one alone, a type changed in the builder).
 */
export type Documents<Builder extends (...args: never[]) => unknown, Schema extends z.ZodType> = [
  OnTheWire<ReturnType<Builder>>,
] extends [z.output<Schema>]
  ? [KeysDiffer<NonNullable<ReturnType<Builder>>, NonNullable<z.output<Schema>>>] extends [never]
    ? true
    : false
  : false;

/** Accepts only `true`: a `Documents` that is false fails to compile where it is written. */
type Holds<Check extends true> = Check;

/** The builders held to their schemas at compile time: a field added to one alone fails tsc. */
export type BuildersDocumented = [
  Holds<Documents<typeof signedInUserJson, typeof signedInUserWireSchema>>,
  Holds<Documents<typeof userJson, typeof userWireSchema>>,
  Holds<Documents<typeof sessionJson, typeof sessionWireSchema>>,
  Holds<Documents<typeof apiKeySessionJson, typeof apiKeySessionWireSchema>>,
  Holds<Documents<typeof apiKeyJson, typeof apiKeyWireSchema>>,
];
