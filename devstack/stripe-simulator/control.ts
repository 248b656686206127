import type { StripeChaos, StripeFault } from './control-client.ts';
import { deliver, deliverAll } from './events.ts';
import { addFault, setChaos } from './faults.ts';
import { setupAuthenticated } from './intents.ts';
import { authenticated } from './payment-intents.ts';
import { setSavedCardExpiry } from './payment-methods.ts';
import type { SimulatorState } from './state.ts';
import { type Answer, type Json, type Request, stripeError } from './wire.ts';

/** The control API under `/_simulator/` (its client: stripeSimulatorControl). */
export async function control(state: SimulatorState, request: Request): Promise<Answer> {
  const { method, path } = request;
  const body = request.form as Json;
  if (path === '/_simulator/webhook-targets' && method === 'POST') {
    const url = String(body.url);
    state.targets = [url, ...state.targets.filter((target) => target !== url)];
    return { status: 200, body: { targets: state.targets } };
  }
  if (path === '/_simulator/webhook-targets' && method === 'DELETE') {
    state.targets = state.targets.filter((target) => target !== String(request.query.url));
    return { status: 200, body: { targets: state.targets } };
  }
  if (path === '/_simulator/faults' && method === 'POST') {
    addFault(state, body as unknown as StripeFault);
    return { status: 200, body: { faults: state.faults } };
  }
  if (path === '/_simulator/faults' && method === 'GET') {
    return { status: 200, body: { faults: state.faults } };
  }
  if (path === '/_simulator/faults' && method === 'DELETE') {
    state.faults = [];
    return { status: 200, body: { faults: state.faults } };
  }
  if (path === '/_simulator/chaos' && method === 'POST') {
    setChaos(state, body as StripeChaos);
    return { status: 200, body: chaosOf(state) };
  }
  if (path === '/_simulator/chaos' && method === 'DELETE') {
    setChaos(state, undefined);
    return { status: 200, body: chaosOf(state) };
  }
  if (path === '/_simulator/chaos' && method === 'GET')
    return { status: 200, body: chaosOf(state) };
  const authentication = /^\/_simulator\/(payment|setup)_intents\/([^/]+)\/authenticate$/.exec(
    path,
  );
  if (authentication?.[2] && method === 'POST') {
    return authenticate(state, authentication[2], body.succeed !== false, request);
  }
  const expiry = /^\/_simulator\/payment_methods\/([^/]+)\/expiry$/.exec(path);
  if (expiry?.[1] && method === 'POST') return cardExpiry(state, expiry[1], body);
  const challenge = /^\/_simulator\/3ds\/([^/]+)$/.exec(path);
  if (challenge?.[1] && method === 'GET') return challengePage(state, challenge[1], request);
  if (challenge?.[1] && method === 'POST') return challengeAnswered(state, challenge[1], request);
  const resend = /^\/_simulator\/events\/([^/]+)\/resend$/.exec(path);
  const known = resend?.[1] ? state.events.get(resend[1]) : undefined;
  if (known && method === 'POST') {
    await deliver(state, known);
    return { status: 200, body: { id: known.id } };
  }
  if (path === '/_simulator/events' && method === 'GET') return eventsOf(state, request);
  if (path === '/_simulator/tax/transactions' && method === 'GET') {
    return { status: 200, body: { data: state.taxTransactions } };
  }
  return stripeError(404, { type: 'invalid_request_error', message: `No control ${path}` });
}

const chaosOf = (state: SimulatorState): Json => ({
  chaos: state.chaos?.settings ?? null,
  counts: state.faultCounts,
});

/** A saved card's expiry, as one customer holds it: `{customer, exp_month, exp_year}`. */
function cardExpiry(state: SimulatorState, methodId: string, body: Json): Answer {
  const { customer, exp_month, exp_year } = body;
  const month = Number(exp_month);
  const year = Number(exp_year);
  if (
    typeof customer !== 'string' ||
    !Number.isInteger(month) ||
    month < 1 ||
    month > 12 ||
    !Number.isInteger(year)
  ) {
    return stripeError(400, {
      type: 'invalid_request_error',
      message: 'customer, exp_month (1-12) and exp_year are required.',
    });
  }
  if (!setSavedCardExpiry(state, customer, methodId, { exp_month: month, exp_year: year })) {
    return stripeError(404, {
      type: 'invalid_request_error',
      message: `Customer '${customer}' holds no PaymentMethod '${methodId}'.`,
    });
  }
  return { status: 200, body: { id: methodId, customer, exp_month: month, exp_year: year } };
}

/** The Payment- or SetupIntent `id` names, when it awaits its holder's 3-D Secure step. */
const awaitingAuthentication = (state: SimulatorState, id: string) => {
  const intent = (id.startsWith('seti_') ? state.setupIntents : state.paymentIntents).get(id);
  return intent?.status === 'requires_action' ? intent : undefined;
};

/** The buyer's 3-D Secure step on an intent that awaits it; its events go out at once. */
function authenticate(
  state: SimulatorState,
  intentId: string,
  succeed: boolean,
  request: Request,
): Answer {
  const waiting = awaitingAuthentication(state, intentId);
  if (!waiting) {
    return stripeError(400, { type: 'invalid_request_error', message: 'Nothing to authenticate.' });
  }
  const answer =
    waiting.object === 'setup_intent'
      ? setupAuthenticated(state, waiting, succeed, request)
      : authenticated(state, waiting, succeed, request);
  deliverAll(state, answer.events ?? []);
  return answer;
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

/** Where the challenge sends its buyer back to: an http(s) address, or nowhere. */
function returnUrlOf(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

const page = (title: string, body: string): string =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
  `<meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title>` +
  `<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}` +
  `button{font-size:1rem;padding:.6rem 1.2rem;margin-right:.5rem}</style></head>` +
  `<body>${body}</body></html>`;

/**
 * GET /_simulator/3ds/:intent?return_url=…: the test stand-in for the bank's 3-D Secure
 * challenge (what `next_action.use_stripe_sdk.stripe_js` points to). "Complete" and "Fail"
 * authenticate the intent as the control call does, then send the buyer back to `return_url`.
 */
function challengePage(state: SimulatorState, intentId: string, request: Request): Answer {
  const waiting = awaitingAuthentication(state, intentId);
  const returnUrl = returnUrlOf(request.query.return_url);
  const back = returnUrl
    ? `<p><a href="${escapeHtml(returnUrl)}">Back to the merchant</a></p>`
    : '';
  if (!waiting) {
    return {
      status: 404,
      body: {},
      html: page('Nothing to authenticate', `<h1>Nothing to authenticate</h1>${back}`),
    };
  }
  const amount = typeof waiting.amount === 'number' ? waiting.amount : null;
  const what =
    amount === null
      ? 'Save this card for future payments?'
      : `Pay ${(amount / 100).toFixed(2)} ${String(waiting.currency).toUpperCase()}?`;
  const hidden = returnUrl
    ? `<input type="hidden" name="return_url" value="${escapeHtml(returnUrl)}">`
    : '';
  const form =
    `<form method="post" action="/_simulator/3ds/${escapeHtml(intentId)}">${hidden}` +
    `<button name="result" value="complete">Complete</button>` +
    `<button name="result" value="fail">Fail</button></form>`;
  return {
    status: 200,
    body: {},
    html: page(
      '3-D Secure test challenge',
      `<h1>3-D Secure test challenge</h1><p>${escapeHtml(what)}</p>` +
        `<p>Test mode: choose how the authentication ends.</p>${form}`,
    ),
  };
}

/** The challenge's answer: the intent authenticated (or not), the buyer sent back. */
function challengeAnswered(state: SimulatorState, intentId: string, request: Request): Answer {
  const answer = authenticate(state, intentId, request.form.result === 'complete', request);
  const returnUrl = returnUrlOf(request.form.return_url);
  if (answer.status === 200 && returnUrl) {
    return { status: 303, body: {}, html: '', headers: { location: returnUrl } };
  }
  const done = answer.status === 200 ? 'Authentication finished' : 'Nothing to authenticate';
  return { status: answer.status, body: {}, html: page(done, `<h1>${done}</h1>`) };
}

/** The events kept (of one PaymentIntent when asked), oldest first: id and type. */
function eventsOf(state: SimulatorState, request: Request): Answer {
  const intent = request.query.payment_intent;
  const list = [...state.events.values()].filter(
    (item) => intent === undefined || item.object.id === intent,
  );
  const data = list.map(({ id, type, deliveredAt }) => ({ id, type, deliveredAt }));
  return { status: 200, body: { data } };
}
