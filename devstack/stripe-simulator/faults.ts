import type { StripeFault } from './control-client.ts';
import { isReplay } from './idempotency.ts';
import { isPaymentConfirmation } from './payment-intents.ts';
import type { SimulatorState } from './state.ts';
import type { Request } from './wire.ts';

/** Arms a fault (see StripeFault), its unset fields filled in. */
export function addFault(state: SimulatorState, fault: StripeFault): void {
  state.faults.push({
    path: fault.path,
    method: fault.method?.toUpperCase() ?? '',
    bodyIncludes: fault.bodyIncludes ?? '',
    mode: fault.mode,
    count: fault.count ?? 1,
    delayMs: fault.delayMs ?? 0,
    declineCode: fault.declineCode ?? 'generic_decline',
    message: fault.message ?? 'Your card was declined.',
  });
}

/** The first armed fault the call matches, used up by one. */
export function takeFault(
  state: SimulatorState,
  request: Request,
): Required<StripeFault> | undefined {
  const text = matchedText(state, request);
  const fault = state.faults.find(
    (candidate) =>
      request.path.startsWith(candidate.path) &&
      (!candidate.method || candidate.method === request.method) &&
      text.includes(candidate.bodyIncludes) &&
      (candidate.mode !== 'decline' ||
        (isPaymentConfirmation(request) && !isReplay(state, request))),
  );
  if (!fault) return undefined;
  fault.count -= 1;
  if (fault.count <= 0) state.faults = state.faults.filter((candidate) => candidate !== fault);
  return fault;
}

/** What `bodyIncludes` is looked for in (see StripeFault). */
function matchedText(state: SimulatorState, request: Request): string {
  let decoded = request.rawBody;
  try {
    decoded = decodeURIComponent(request.rawBody.replaceAll('+', ' '));
  } catch {
    // Not URL-encoded after all: the raw body alone is matched.
  }
  const confirmed = /^\/v1\/payment_intents\/([^/]+)\/confirm$/.exec(request.path)?.[1];
  const metadata = confirmed ? state.paymentIntents.get(confirmed)?.metadata : undefined;
  return [request.rawBody, decoded, metadata ? JSON.stringify(metadata) : ''].join('\n');
}
