import Router from '@koa/router';
import { hasAdminPermission } from '../../accounts/admin-permissions.ts';
import { authSettings } from '../../accounts/settings.ts';
import { AppError } from '../../core/errors.ts';
import { readCapturedMails } from '../../integrations/mail/captured-mail.ts';
import { signedInOrNull } from '../auth/session-context.ts';
import type { AppDependencies } from '../dependencies.ts';
import { opsTokenCheck } from '../middleware/ops-token.ts';

/** 127.0.0.0/8 and ::1, also as a dual-stack socket reports an IPv4 peer. */
const isLoopback = (address: string | undefined) =>
  address !== undefined && /^(::ffff:)?127\.\d+\.\d+\.\d+$|^::1$/i.test(address);

/**
 * Development only: the newest 100 mails the capture server caught, since none goes out.
 * Mounted when `npm start` runs the capture server (no SMTP_URL of the user's).
 *
 * Those mails hold every account's reset and verification links, so reading them is as
 * powerful as impersonating anyone: only from this machine (the connection's own peer, never
 * a forwarded address), with the ops token or as a signed-in admin allowed to impersonate.
 */
export function devOutboxRoutes({ orm, config }: AppDependencies, captureDir: string): Router {
  const router = new Router({ prefix: '/api/dev' });
  const settings = authSettings(config);
  const presentsOpsToken = opsTokenCheck(config.opsToken);

  router.get('/outbox', async (ctx) => {
    if (!isLoopback(ctx.req.socket.remoteAddress)) {
      throw new AppError(
        'forbidden',
        'FORBIDDEN',
        'The dev outbox answers requests from this machine only',
      );
    }
    if (!presentsOpsToken(ctx)) {
      const signedIn = await signedInOrNull(ctx, orm, settings);
      if (!signedIn) {
        throw new AppError(
          'unauthenticated',
          'UNAUTHORIZED',
          'Sign in as an admin or present the ops token',
        );
      }
      const subject = { userId: signedIn.user.id, role: signedIn.user.role };
      if (!hasAdminPermission(subject, { user: ['impersonate'] }, settings.adminUserIds)) {
        throw new AppError('forbidden', 'FORBIDDEN', 'Only admins may read the dev outbox');
      }
    }
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { items: await readCapturedMails(captureDir, 100) };
  });

  return router;
}
