import Router from '@koa/router';
import { readCapturedMails } from '../../activities/mail/testing.ts';

/**
 * Development only: the newest 100 mails the capture server caught, since none goes out.
 * Mounted when `npm start` runs the capture server (no SMTP_URL of the user's).
 */
export function devOutboxRoutes(captureDir: string): Router {
  const router = new Router({ prefix: '/api/dev' });

  router.get('/outbox', async (ctx) => {
    ctx.body = { items: await readCapturedMails(captureDir, 100) };
  });

  return router;
}
