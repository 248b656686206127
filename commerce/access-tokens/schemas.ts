import { z } from 'zod';
import type { OrganizationAccessToken } from '../../db/entities/index.ts';
import { allScopes, isScope } from '../../domain/scopes.ts';
import { dateTimeWireSchema, isoDateTime, isoDateTimeOrNull } from '../wire.ts';

const scopeList = z.array(z.string().refine(isScope, 'Unknown scope')).min(1);

const yearSeconds = 365 * 24 * 3600;
// A lifetime long enough for any real use, short enough to stay a valid date.
const maxLifetimeSeconds = 100 * yearSeconds;
/** The lifetime of a token whose creator gives none: a forgotten token does not work forever. */
export const defaultLifetimeSeconds = yearSeconds;

export const accessTokenCreateInput = z.object({
  organization_id: z.uuid().nullable().optional(),
  comment: z.string().trim().min(1).max(255),
  /** Lifetime in seconds; absent for a year (the default), null for a token that does not expire. */
  expires_in: z.number().int().min(60).max(maxLifetimeSeconds).nullable().optional(),
  scopes: scopeList,
});
export type AccessTokenCreateInput = z.infer<typeof accessTokenCreateInput>;

export const accessTokenUpdateInput = z.object({
  comment: z.string().trim().min(1).max(255).nullable().optional(),
  scopes: scopeList.nullable().optional(),
});
export type AccessTokenUpdateInput = z.infer<typeof accessTokenUpdateInput>;

/** Polar's sort properties of the token list (default `created_at`, oldest first). */
export const accessTokenSortColumns = {
  created_at: 'createdAt',
  comment: 'comment',
  last_used_at: 'lastUsedAt',
  organization_id: 'organization',
} as const;
export type AccessTokenSortField = keyof typeof accessTokenSortColumns;
export const accessTokenSortFields = Object.keys(accessTokenSortColumns) as AccessTokenSortField[];

/** Polar's `OrganizationAccessToken`. */
export const accessTokenWireSchema = z
  .object({
    id: z.uuid(),
    created_at: dateTimeWireSchema,
    modified_at: dateTimeWireSchema.nullable(),
    organization_id: z.uuid(),
    comment: z.string(),
    scopes: z.array(z.enum(allScopes)),
    expires_at: dateTimeWireSchema.nullable(),
    last_used_at: dateTimeWireSchema.nullable(),
  })
  .meta({ id: 'OrganizationAccessToken' });

/** Polar's `OrganizationAccessTokenCreateResponse`: the token itself, shown this once. */
export const createdAccessTokenWireSchema = z
  .object({ organization_access_token: accessTokenWireSchema, token: z.string() })
  .meta({ id: 'OrganizationAccessTokenCreateResponse' });

/** A token as listed: never the token itself, which is shown once at creation. */
export function accessTokenWire(
  token: OrganizationAccessToken,
): z.input<typeof accessTokenWireSchema> {
  return {
    id: token.id,
    created_at: isoDateTime(token.createdAt),
    modified_at: isoDateTimeOrNull(token.modifiedAt),
    organization_id: token.organization.id,
    comment: token.comment,
    // Stored scopes were checked as they came in: this only narrows their type.
    scopes: token.scopes.filter(isScope),
    expires_at: isoDateTimeOrNull(token.expiresAt),
    last_used_at: isoDateTimeOrNull(token.lastUsedAt),
  };
}
