import { forward, type SimulatorState } from './state.ts';
import { type Answer, type Json, now, type Request, stripeError } from './wire.ts';

/** As at Stripe, a confirmation token is usable for 12 hours. */
const tokenLifetimeSeconds = 12 * 60 * 60;

/**
 * Confirmation tokens (what Stripe Elements makes of the card a buyer typed): tests make them
 * with POST /v1/test_helpers/confirmation_tokens, and only those made here are found; null for
 * other calls. stripe-mock checks each call's parameters and shapes the token.
 */
export async function routeConfirmationTokens(
  state: SimulatorState,
  request: Request,
): Promise<Answer | null> {
  const { method, path } = request;
  const created = method === 'POST' && path === '/v1/test_helpers/confirmation_tokens';
  const retrieved = method === 'GET' && /^\/v1\/confirmation_tokens\/([^/]+)$/.exec(path);
  if (!created && !retrieved) return null;
  const checked = await forward(state, request);
  if (checked.status >= 400) return checked;
  if (created) {
    const token: Json = {
      ...checked.body,
      created: now(),
      expires_at: now() + tokenLifetimeSeconds,
      livemode: false,
      payment_method: request.form.payment_method ?? null,
    };
    state.confirmationTokens.set(String(token.id), token);
    return { status: 200, body: token };
  }
  const id = retrieved ? (retrieved[1] as string) : '';
  const token = state.confirmationTokens.get(id);
  if (!token) {
    return stripeError(404, {
      type: 'invalid_request_error',
      code: 'resource_missing',
      param: 'confirmation_token',
      message: `No such confirmation_token: '${id}'`,
    });
  }
  return { status: 200, body: token };
}

/**
 * The test card a confirmation token was made of (`pm_card_authenticationRequired`, say): an
 * intent confirmed with the token pays as that card does.
 */
export function testCardOfToken(state: SimulatorState, tokenId: string): string | undefined {
  const card = state.confirmationTokens.get(tokenId)?.payment_method;
  return typeof card === 'string' ? card : undefined;
}
