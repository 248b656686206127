import Router from '@koa/router';
import type { AppDependencies } from '../dependencies.ts';

export interface ServiceCheck {
  name: 'database' | 'temporal' | 'stripe';
  ok: boolean;
  latencyMs: number;
  detail: string;
}

const checkTimeoutMs = 2000;

async function timed(
  name: ServiceCheck['name'],
  probe: () => Promise<string>,
): Promise<ServiceCheck> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    const detail = await Promise.race([
      probe(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer within ${checkTimeoutMs} ms`)),
          checkTimeoutMs,
        );
      }),
    ]);
    return { name, ok: true, latencyMs: performance.now() - started, detail };
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return { name, ok: false, latencyMs: performance.now() - started, detail };
  } finally {
    // Answered in time: its timer must not keep a stopping process alive for 2 s.
    clearTimeout(timer);
  }
}

/** Liveness, readiness of each service the API depends on, and facts the dashboard shows. */
export function healthRoutes({ config, orm, temporal, stripe }: AppDependencies): Router {
  const router = new Router({ prefix: '/api/health' });

  router.get('/live', (ctx) => {
    ctx.body = { status: 'live' };
  });

  router.get('/ready', async (ctx) => {
    const checks = await Promise.all([
      timed('database', async () => {
        await orm.em.getConnection().execute('select 1');
        return 'PostgreSQL answers';
      }),
      timed('temporal', async () => {
        await temporal.workflowService.getSystemInfo({});
        return `Temporal at ${config.temporal.address} is serving`;
      }),
      timed('stripe', async () => {
        await stripe.balance.retrieve();
        return `Stripe API at ${config.stripe.apiBase} answers`;
      }),
    ]);
    const ready = checks.every((check) => check.ok);
    ctx.status = ready ? 200 : 503;
    ctx.body = {
      status: ready ? 'ready' : 'degraded',
      checkedAt: new Date().toISOString(),
      checks,
    };
  });

  router.get('/info', (ctx) => {
    ctx.body = {
      temporalUiUrl: config.temporal.uiUrl ?? null,
      version: process.env.npm_package_version ?? '0.1.0',
    };
  });

  return router;
}
