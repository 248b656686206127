import type Router from '@koa/router';
import { z } from 'zod';
import {
  listUserSessions,
  revokeUserSession,
  revokeUserSessions,
} from '../../../accounts/admin-sessions.ts';
import { sessionIdFromToken } from '../../../accounts/session-token.ts';
import { sessionJson } from '../../../accounts/sessions.ts';
import { parseBody } from '../../validation.ts';
import { type AdminRouteContext, userIdBody } from './context.ts';

export const revokeUserSessionBody = z.object({ sessionToken: z.string() });

/** The admin plugin's view of other users' sessions: list, revoke one, revoke all. */
export function userSessionRoutes(router: Router, { orm, requireAdmin }: AdminRouteContext): void {
  router.post('/list-user-sessions', async (ctx) => {
    const body = parseBody(ctx, userIdBody);
    const admin = await requireAdmin(
      ctx,
      { session: ['list'] },
      'YOU_ARE_NOT_ALLOWED_TO_LIST_USERS_SESSIONS',
    );
    const sessions = await listUserSessions(orm.em, body.userId);
    // Only hashes are stored: a session stands for itself by its id, which revoke-user-session
    // accepts; the admin's own current session is shown with its token.
    const ownId = sessionIdFromToken(admin.token);
    ctx.body = {
      sessions: sessions.map((session) =>
        sessionJson(session, session.id === ownId ? admin.token : session.id),
      ),
    };
  });

  router.post('/revoke-user-session', async (ctx) => {
    const { sessionToken } = parseBody(ctx, revokeUserSessionBody);
    await requireAdmin(
      ctx,
      { session: ['revoke'] },
      'YOU_ARE_NOT_ALLOWED_TO_REVOKE_USERS_SESSIONS',
    );
    await revokeUserSession(orm.em, sessionToken);
    ctx.body = { success: true };
  });

  router.post('/revoke-user-sessions', async (ctx) => {
    const body = parseBody(ctx, userIdBody);
    await requireAdmin(
      ctx,
      { session: ['revoke'] },
      'YOU_ARE_NOT_ALLOWED_TO_REVOKE_USERS_SESSIONS',
    );
    await revokeUserSessions(orm.em, body.userId);
    ctx.body = { success: true };
  });
}
