import type { Context, Middleware } from 'koa';
import type { CaptchaConfig } from '../../config/env.ts';
import type { Logger } from '../../config/logger.ts';
import {
  CaptchaUnavailableError,
  type CaptchaVerdict,
  verifyCaptcha,
} from '../../integrations/captcha/siteverify.ts';

/** The header Better Auth's captcha plugin reads the widget's token from. */
export const captchaHeader = 'x-captcha-response';

/** That plugin's answers, `{message}` alone: no token 400, refused 403, verifier down 500. */
const captchaRefusals = {
  missing: { status: 400, message: 'Missing CAPTCHA response' },
  failed: { status: 403, message: 'Captcha verification failed' },
  unavailable: { status: 500, message: 'Something went wrong' },
} as const;

/** A refusal that says the site's secret is wrong, not that the client is a bot. */
const misconfigured = new Set(['missing-input-secret', 'invalid-input-secret']);

function refuse(ctx: Context, refusal: keyof typeof captchaRefusals): void {
  const { status, message } = captchaRefusals[refusal];
  ctx.status = status;
  ctx.body = { message };
}

/**
 * Lets a POST through only with a solved captcha: the token in X-Captcha-Response, checked
 * with the provider's siteverify for the client's address (ctx.ip, so only trusted proxies
 * can name another). Mount it on the routes to protect (api/auth/routes.ts).
 */
export function captchaCheck(config: CaptchaConfig, logger: Logger): Middleware {
  return async (ctx, next) => {
    if (ctx.method !== 'POST') return next();
    const response = ctx.get(captchaHeader);
    if (!response) return refuse(ctx, 'missing');
    let verdict: CaptchaVerdict;
    try {
      verdict = await verifyCaptcha(config, { response, remoteIp: ctx.ip || undefined });
    } catch (error) {
      if (!(error instanceof CaptchaUnavailableError)) throw error;
      logger.error({ err: error, provider: config.provider }, 'captcha verifier unavailable');
      return refuse(ctx, 'unavailable');
    }
    if (!verdict.passed) {
      const { errorCodes, score } = verdict;
      const details = { provider: config.provider, errorCodes, score, ip: ctx.ip };
      if (errorCodes.some((code) => misconfigured.has(code))) {
        logger.error(details, 'captcha provider refused the secret key');
      } else {
        logger.info(details, 'captcha refused');
      }
      return refuse(ctx, 'failed');
    }
    return next();
  };
}
