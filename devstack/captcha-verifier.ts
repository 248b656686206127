import { randomBytes } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CaptchaProvider } from '../config/env.ts';
import { siteverifyUrls } from '../integrations/captcha/siteverify.ts';

/** One siteverify call as the fake received it. */
export interface SiteverifyCall {
  contentType: string;
  secret: string | undefined;
  response: string | undefined;
  remoteip: string | undefined;
}

/**
 * A stand-in for a captcha provider's siteverify endpoint (Cloudflare Turnstile, Google
 * reCAPTCHA, hCaptcha), at the provider's own path, answering in its format. Tokens come from
 * `solve`, as a widget hands them out after a solved challenge, and verify once.
 */
export interface CaptchaVerifierFake {
  provider: CaptchaProvider;
  /** The siteverify URL for TOLLGATE_CAPTCHA_VERIFY_URL. */
  url: string;
  /** The site's secret key (TOLLGATE_CAPTCHA_SECRET_KEY); any other is refused. */
  secret: string;
  /** A fresh, solved token; for reCAPTCHA with a score, a v3 token carrying that score. */
  solve(options?: { score?: number }): string;
  /** Every siteverify call, in order. */
  calls: SiteverifyCall[];
  stop(): Promise<void>;
}

/** The error code each provider gives a token already verified once. */
const reusedCode: Record<CaptchaProvider, string> = {
  turnstile: 'timeout-or-duplicate',
  recaptcha: 'timeout-or-duplicate',
  hcaptcha: 'already-seen-response',
};

function sendJson(response: ServerResponse, status: number, body: unknown) {
  response.statusCode = status;
  response.setHeader('content-type', 'application/json');
  response.end(JSON.stringify(body));
}

type Fields = Omit<SiteverifyCall, 'contentType'>;

/**
 * The request's fields: form-encoded for every provider, JSON too for Turnstile (as Cloudflare
 * takes both); null for a body Turnstile cannot read.
 */
function fieldsOf(provider: CaptchaProvider, contentType: string, text: string): Fields | null {
  if (provider === 'turnstile' && contentType.startsWith('application/json')) {
    try {
      const body = JSON.parse(text) as Record<string, unknown>;
      const field = (name: string) => (typeof body[name] === 'string' ? body[name] : undefined);
      return { secret: field('secret'), response: field('response'), remoteip: field('remoteip') };
    } catch {
      return null;
    }
  }
  if (!contentType.startsWith('application/x-www-form-urlencoded')) {
    // Google and hCaptcha read form fields only: a JSON body has neither secret nor response.
    return provider === 'turnstile'
      ? null
      : { secret: undefined, response: undefined, remoteip: undefined };
  }
  const form = new URLSearchParams(text);
  const field = (name: string) => form.get(name) ?? undefined;
  return { secret: field('secret'), response: field('response'), remoteip: field('remoteip') };
}

export async function startCaptchaVerifierFake(
  provider: CaptchaProvider,
): Promise<CaptchaVerifierFake> {
  const secret = `fake-${provider}-secret-${randomBytes(8).toString('hex')}`;
  const path = new URL(siteverifyUrls[provider]).pathname;
  /** token → its reCAPTCHA v3 score (null: none), while not yet verified */
  const unused = new Map<string, number | null>();
  const issued = new Set<string>();
  const calls: SiteverifyCall[] = [];

  const refusal = (codes: string[]) =>
    provider === 'turnstile'
      ? { success: false, 'error-codes': codes, messages: [] }
      : { success: false, 'error-codes': codes };

  const success = (score: number | null) => {
    const common = { success: true, challenge_ts: new Date().toISOString(), hostname: 'localhost' };
    if (provider === 'turnstile') {
      return { ...common, 'error-codes': [], action: '', cdata: '', metadata: {} };
    }
    if (provider === 'hcaptcha') return { ...common, credit: false };
    return score === null ? common : { ...common, score, action: 'submit' };
  };

  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (new URL(request.url ?? '/', 'http://fake').pathname !== path) {
      return sendJson(response, 404, { error: 'not found' });
    }
    if (request.method !== 'POST') return sendJson(response, 405, { error: 'method not allowed' });
    const contentType = request.headers['content-type'] ?? '';
    const fields = fieldsOf(provider, contentType, Buffer.concat(chunks).toString('utf8'));
    if (!fields) return sendJson(response, 400, refusal(['bad-request']));
    calls.push({ contentType, ...fields });
    const missing = [
      ...(fields.secret ? [] : ['missing-input-secret']),
      ...(fields.response ? [] : ['missing-input-response']),
    ];
    if (missing.length) return sendJson(response, 200, refusal(missing));
    if (fields.secret !== secret) return sendJson(response, 200, refusal(['invalid-input-secret']));
    const token = fields.response ?? '';
    const score = unused.get(token);
    if (score === undefined) {
      const code = issued.has(token) ? reusedCode[provider] : 'invalid-input-response';
      return sendJson(response, 200, refusal([code]));
    }
    unused.delete(token);
    sendJson(response, 200, success(score));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    provider,
    url: `http://127.0.0.1:${port}${path}`,
    secret,
    solve({ score } = {}) {
      const token = `${provider}.${randomBytes(24).toString('base64url')}`;
      unused.set(token, provider === 'recaptcha' && score !== undefined ? score : null);
      issued.add(token);
      return token;
    },
    calls,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
