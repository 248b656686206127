import type Router from '@koa/router';
import { impersonate, stopImpersonating } from '../../../accounts/admin-sessions.ts';
import { authError } from '../../../accounts/errors.ts';
import { sessionJson, userJson } from '../../../accounts/sessions.ts';
import { parseBody } from '../../validation.ts';
import {
  clearSessionCookies,
  cookieName,
  cookieNames,
  readCookie,
  setCookie,
  setSessionCookies,
  signCookieValue,
  verifySignedCookie,
} from '../cookies.ts';
import { isShortLivedSession, requireSignedIn } from '../session-context.ts';
import { type AdminRouteContext, userIdBody } from './context.ts';

/**
 * The admin plugin's impersonation: impersonate-user swaps the browser's session for one of
 * the user's, stop-impersonating swaps the admin's own back.
 */
export function impersonationRoutes(
  router: Router,
  { orm, settings, requireAdmin }: AdminRouteContext,
): void {
  // Better Auth keeps the admin's own session here while they act as someone else.
  const adminSessionCookie = cookieName(settings, 'admin_session');

  router.post('/impersonate-user', async (ctx) => {
    const body = parseBody(ctx, userIdBody);
    const admin = await requireAdmin(
      ctx,
      { user: ['impersonate'] },
      'YOU_ARE_NOT_ALLOWED_TO_IMPERSONATE_USERS',
    );
    const created = await impersonate(orm.em, settings, admin.user.id, body.userId, {
      ipAddress: ctx.ip || null,
      userAgent: ctx.get('user-agent') || null,
    });
    // The browser now holds the impersonation session as a session cookie; the admin's own
    // token (and whether it was remembered) waits in the signed admin_session cookie.
    clearSessionCookies(ctx, settings);
    const adminRemembered = !isShortLivedSession(ctx, settings);
    setCookie(
      ctx,
      settings,
      adminSessionCookie,
      signCookieValue(`${admin.token}:${adminRemembered ? '' : 'true'}`, settings.secret),
      settings.session.expiresInSeconds,
    );
    setSessionCookies(ctx, settings, created.token, {
      rememberMe: false,
      maxAgeSeconds: settings.impersonationSessionSeconds,
    });
    ctx.body = {
      session: sessionJson(created.session, created.token),
      user: userJson(created.session.user),
    };
  });

  router.post('/stop-impersonating', async (ctx) => {
    const { session } = await requireSignedIn(ctx, orm, settings);
    if (!session.impersonatedBy) throw authError('invalid', 'YOU_ARE_NOT_IMPERSONATING_ANYONE');
    const cookie = readCookie(ctx, adminSessionCookie);
    const saved = cookie ? verifySignedCookie(cookie, settings.secret) : null;
    const [adminToken = '', adminShortLived = ''] = saved?.split(':') ?? [];
    const admin = await stopImpersonating(orm.em, settings, session, adminToken);
    const rememberMe = adminShortLived !== 'true';
    setSessionCookies(ctx, settings, adminToken, {
      rememberMe,
      maxAgeSeconds: settings.session.expiresInSeconds,
    });
    setCookie(ctx, settings, adminSessionCookie, '', 0);
    if (rememberMe) setCookie(ctx, settings, cookieNames(settings).dontRemember, '', 0);
    ctx.body = { session: sessionJson(admin.session, adminToken), user: userJson(admin.user) };
  });
}
