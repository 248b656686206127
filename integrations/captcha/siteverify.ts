import type { CaptchaConfig, CaptchaProvider } from '../../config/env.ts';

/** Each provider's siteverify endpoint, used unless TOLLGATE_CAPTCHA_VERIFY_URL names another. */
export const siteverifyUrls: Record<CaptchaProvider, string> = {
  turnstile: 'https://challenges.cloudflare.com/turnstile/v0/siteverify',
  recaptcha: 'https://www.google.com/recaptcha/api/siteverify',
  hcaptcha: 'https://api.hcaptcha.com/siteverify',
};

/** The verifier could not be asked, or answered something that is not a verdict. */
export class CaptchaUnavailableError extends Error {
  override name = 'CaptchaUnavailableError';
}

export interface CaptchaVerdict {
  passed: boolean;
  /** The provider's `error-codes` (such as invalid-input-secret, timeout-or-duplicate). */
  errorCodes: string[];
  /** reCAPTCHA v3's score, from 0 (a bot) to 1; absent for the other kinds. */
  score?: number;
}

/** What the three siteverify endpoints answer, the fields read here. */
interface SiteverifyAnswer {
  success?: unknown;
  score?: unknown;
  'error-codes'?: unknown;
}

/**
 * Asks the provider whether `response` (the widget's token, as the client sent it) was solved
 * by the client at `remoteIp`. All three take the same form-encoded POST of secret, response
 * and remoteip, and answer `{success}`; reCAPTCHA v3 adds a score, which must reach minScore.
 */
export async function verifyCaptcha(
  config: CaptchaConfig,
  { response, remoteIp }: { response: string; remoteIp: string | undefined },
): Promise<CaptchaVerdict> {
  const form = new URLSearchParams({ secret: config.secretKey, response });
  if (remoteIp) form.set('remoteip', remoteIp);
  let answer: SiteverifyAnswer;
  try {
    const reply = await fetch(config.verifyUrl ?? siteverifyUrls[config.provider], {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form,
      signal: AbortSignal.timeout(10_000),
    });
    if (!reply.ok) throw new Error(`siteverify answered ${reply.status}`);
    answer = (await reply.json()) as SiteverifyAnswer;
  } catch (error) {
    throw new CaptchaUnavailableError(`The ${config.provider} verifier failed: ${String(error)}`);
  }
  if (typeof answer?.success !== 'boolean') {
    throw new CaptchaUnavailableError(`The ${config.provider} verifier answered no verdict`);
  }
  const errorCodes = Array.isArray(answer['error-codes']) ? answer['error-codes'].map(String) : [];
  // Only reCAPTCHA v3 scores; a v2 answer (no score) passes on success alone.
  const score =
    config.provider === 'recaptcha' && typeof answer.score === 'number' ? answer.score : undefined;
  const passed = answer.success && (score === undefined || score >= config.minScore);
  return { passed, errorCodes, ...(score !== undefined && { score }) };
}
