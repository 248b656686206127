import type Router from '@koa/router';
import { z } from 'zod';
import { banUser, unbanUser } from '../../../accounts/admin-users.ts';
import { userJson } from '../../../accounts/sessions.ts';
import { parseBody } from '../../validation.ts';
import { type AdminRouteContext, userId, userIdBody } from './context.ts';

// A ban may last at most a thousand years: any longer and the end date is no date at all.
const maxBanSeconds = 1000 * 365 * 86_400;
export const banUserBody = z.object({
  userId,
  banReason: z.string().optional(),
  banExpiresIn: z.number().positive().max(maxBanSeconds).optional(),
});

/** The admin plugin's bans: ban-user and unban-user. */
export function banRoutes(router: Router, { orm, requireAdmin }: AdminRouteContext): void {
  router.post('/ban-user', async (ctx) => {
    const body = parseBody(ctx, banUserBody);
    const admin = await requireAdmin(ctx, { user: ['ban'] }, 'YOU_ARE_NOT_ALLOWED_TO_BAN_USERS');
    ctx.body = { user: userJson(await banUser(orm.em, admin.user.id, body)) };
  });

  router.post('/unban-user', async (ctx) => {
    const body = parseBody(ctx, userIdBody);
    await requireAdmin(ctx, { user: ['ban'] }, 'YOU_ARE_NOT_ALLOWED_TO_BAN_USERS');
    ctx.body = { user: userJson(await unbanUser(orm.em, body.userId)) };
  });
}
