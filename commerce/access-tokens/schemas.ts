import { z } from 'zod';
import type { OrganizationAccessToken } from '../../db/entities/index.ts';
import { isScope } from '../http/scopes.ts';
import { isoDateTime, isoDateTimeOrNull } from '../http/wire.ts';

export const accessTokenCreateInput = z.object({
  organization_id: z.uuid().nullable().optional(),
  comment: z.string().trim().min(1).max(255),
  /** Lifetime in seconds; null or absent for a token that does not expire. */
  expires_in: z.number().int().min(60).nullable().optional(),
  scopes: z.array(z.string().refine(isScope, 'Unknown scope')).min(1),
});
export type AccessTokenCreateInput = z.infer<typeof accessTokenCreateInput>;

export const accessTokenUpdateInput = z.object({
  comment: z.string().trim().min(1).max(255).nullable().optional(),
  scopes: z.array(z.string().refine(isScope, 'Unknown scope')).min(1).nullable().optional(),
});
export type AccessTokenUpdateInput = z.infer<typeof accessTokenUpdateInput>;

/** A token as listed: never the token itself, which is shown once at creation. */
export function accessTokenWire(token: OrganizationAccessToken) {
  return {
    id: token.id,
    created_at: isoDateTime(token.createdAt),
    modified_at: isoDateTimeOrNull(token.modifiedAt),
    organization_id: token.organization.id,
    comment: token.comment,
    scopes: token.scopes,
    expires_at: isoDateTimeOrNull(token.expiresAt),
    last_used_at: isoDateTimeOrNull(token.lastUsedAt),
  };
}
