import type { Middleware } from 'koa';
import { adminStatements, hasAdminPermission } from '../../accounts/admin-permissions.ts';
import type { AuthSettings } from '../../accounts/settings.ts';
import { AppError } from '../../core/errors.ts';
import type { Orm } from '../../db/orm.ts';
import { signedInOrNull } from '../auth/session-context.ts';

/**
 * Lets through the session (cookie or bearer token) of a platform admin: a user whose role grants
 * every statement of the admin plugin, or one of TOLLGATE_ADMIN_USER_IDS. No session answers
 * 401, anyone else's 403 with `refusal`.
 */
export function requireAdminSession(orm: Orm, settings: AuthSettings, refusal: string): Middleware {
  return async (ctx, next) => {
    const signedIn = await signedInOrNull(ctx, orm, settings);
    if (!signedIn) {
      throw new AppError('unauthenticated', 'UNAUTHORIZED', 'An admin session is required');
    }
    const subject = { userId: signedIn.user.id, role: signedIn.user.role };
    if (!hasAdminPermission(subject, adminStatements, settings.adminUserIds)) {
      throw new AppError('forbidden', 'FORBIDDEN', refusal);
    }
    await next();
  };
}
