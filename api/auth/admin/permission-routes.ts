import type Router from '@koa/router';
import { z } from 'zod';
import { hasAdminPermission } from '../../../accounts/admin-permissions.ts';
import { parseBody } from '../../validation.ts';
import { requireSignedIn } from '../session-context.ts';
import { type AdminRouteContext, userId } from './context.ts';

const permissionMap = z.record(z.string(), z.array(z.string()));
// `permission` is the deprecated spelling; exactly one of the two must be given.
export const hasPermissionBody = z
  .object({ userId: userId.optional(), role: z.string().optional() })
  .and(
    z.union([
      z.object({ permission: permissionMap, permissions: z.undefined().optional() }),
      z.object({ permission: z.undefined().optional(), permissions: permissionMap }),
    ]),
  );

/** The admin plugin's has-permission: whether the caller's roles grant a set of actions. */
export function permissionRoutes(router: Router, { orm, settings }: AdminRouteContext): void {
  router.post('/has-permission', async (ctx) => {
    const body = parseBody(ctx, hasPermissionBody);
    // Over HTTP the answer is about the caller; userId and role only matter to server calls.
    const { user } = await requireSignedIn(ctx, orm, settings);
    const request = body.permissions ?? body.permission;
    const success = hasAdminPermission(
      { userId: user.id, role: user.role },
      request,
      settings.adminUserIds,
    );
    ctx.body = { error: null, success };
  });
}
