import type { Context } from 'koa';
import { z } from 'zod';
import {
  hasAdminPermission,
  type PermissionRequest,
  rolesExist,
} from '../../../accounts/admin-permissions.ts';
import { type AuthMessage, authError } from '../../../accounts/errors.ts';
import type { SignedIn } from '../../../accounts/sessions.ts';
import type { AuthSettings } from '../../../accounts/settings.ts';
import type { Orm } from '../../../db/orm.ts';
import { requireSignedIn } from '../session-context.ts';

// Better Auth coerces ids to strings, so a number is "a user that does not exist", not a 400.
export const userId = z.coerce.string();
export const roleValue = z.union([z.string(), z.array(z.string())]);
export const userIdBody = z.object({ userId });
export const setRoleBody = z.object({ userId, role: roleValue });

/** What every admin route uses: the database, the settings and the permission checks. */
export interface AdminRouteContext {
  orm: Orm;
  settings: AuthSettings;
  /** The signed-in caller, who must hold every permission in `request`; else 403 `refusal`. */
  requireAdmin(ctx: Context, request: PermissionRequest, refusal: AuthMessage): Promise<SignedIn>;
  /** Refuses roles that do not exist. */
  checkRoles(role: string | string[]): void;
}

export function adminRouteContext(orm: Orm, settings: AuthSettings): AdminRouteContext {
  return {
    orm,
    settings,
    async requireAdmin(ctx, request, refusal) {
      const signedIn = await requireSignedIn(ctx, orm, settings);
      const subject = { userId: signedIn.user.id, role: signedIn.user.role };
      if (!hasAdminPermission(subject, request, settings.adminUserIds)) {
        throw authError('forbidden', refusal);
      }
      return signedIn;
    },
    checkRoles(role) {
      if (!rolesExist(role))
        throw authError('invalid', 'YOU_ARE_NOT_ALLOWED_TO_SET_NON_EXISTENT_VALUE');
    },
  };
}
