import Router from '@koa/router';
import { escapeHtml } from '../../domain/html.ts';
import { parseQuery } from '../validation.ts';
import { errorPageQuery } from './schemas.ts';

/** The two browser-facing pages of /api/auth that need no account: ok and the error page. */
export function pageRoutes(): Router {
  const router = new Router();

  router.get('/ok', (ctx) => {
    ctx.body = { ok: true };
  });

  router.get('/error', (ctx) => {
    const code = parseQuery(ctx, errorPageQuery).error || 'UNKNOWN';
    ctx.type = 'html';
    ctx.body = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Error</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:system-ui,sans-serif;display:grid;place-items:center;min-height:100vh;margin:0}
main{text-align:center}code{background:#f3f4f6;padding:.2em .4em;border-radius:4px}</style></head>
<body><main>
<h1>Something went wrong</h1>
<p>Error code: <code>${escapeHtml(code)}</code></p>
<p><a href="/">Return to Application</a></p>
</main></body>
</html>`;
  });

  return router;
}
