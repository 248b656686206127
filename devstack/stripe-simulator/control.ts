import type { StripeFault } from './control-client.ts';
import { deliver, deliverAll } from './events.ts';
import { addFault } from './faults.ts';
import { authenticated } from './payment-intents.ts';
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
  const authentication = /^\/_simulator\/payment_intents\/([^/]+)\/authenticate$/.exec(path);
  if (authentication?.[1] && method === 'POST') {
    return authenticate(state, authentication[1], body.succeed !== false, request);
  }
  const resend = /^\/_simulator\/events\/([^/]+)\/resend$/.exec(path);
  const known = resend?.[1] ? state.events.get(resend[1]) : undefined;
  if (known && method === 'POST') {
    await deliver(state, known);
    return { status: 200, body: { id: known.id } };
  }
  if (path === '/_simulator/events' && method === 'GET') return eventsOf(state, request);
  return stripeError(404, { type: 'invalid_request_error', message: `No control ${path}` });
}

/** The buyer's 3-D Secure step on a PaymentIntent that awaits it; its events go out at once. */
function authenticate(
  state: SimulatorState,
  paymentIntentId: string,
  succeed: boolean,
  request: Request,
): Answer {
  const waiting = state.paymentIntents.get(paymentIntentId);
  if (waiting?.status !== 'requires_action') {
    return stripeError(400, { type: 'invalid_request_error', message: 'Nothing to authenticate.' });
  }
  const answer = authenticated(state, waiting, succeed, request);
  deliverAll(state, answer.events ?? []);
  return answer;
}

/** The events kept (of one PaymentIntent when asked), oldest first: id and type. */
function eventsOf(state: SimulatorState, request: Request): Answer {
  const intent = request.query.payment_intent;
  const list = [...state.events.values()].filter(
    (item) => intent === undefined || item.object.id === intent,
  );
  return { status: 200, body: { data: list.map(({ id, type }) => ({ id, type })) } };
}
