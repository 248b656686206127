import { setTimeout as sleep } from 'node:timers/promises';
import { seededRandom } from '../seeded-random.ts';
import type {
  StripeCallFaultMode,
  StripeChaos,
  StripeFault,
  StripeFaultMode,
  StripeWebhookFaultMode,
} from './control-client.ts';
import { deliverAll } from './events.ts';
import { isReplay } from './idempotency.ts';
import { isPaymentConfirmation } from './payment-intents.ts';
import type { SimulatorState } from './state.ts';
import type { Request, StripeEvent } from './wire.ts';

type ArmedFault = Required<StripeFault>;

const webhookModes = new Set<StripeFaultMode>(['duplicate', 'reorder'] as const);
const isWebhookFault = (fault: ArmedFault) => webhookModes.has(fault.mode);

/** The faults one call meets: at most one on its answer, and one on the events it sends. */
export interface CallFaults {
  call?: ArmedFault & { mode: StripeCallFaultMode };
  webhook?: ArmedFault & { mode: StripeWebhookFaultMode };
}

/** Arms a fault (see StripeFault), its unset fields filled in. */
export function addFault(state: SimulatorState, fault: StripeFault): void {
  state.faults.push(armed(fault));
}

const armed = (fault: StripeFault): ArmedFault => ({
  path: fault.path,
  method: fault.method?.toUpperCase() ?? '',
  bodyIncludes: fault.bodyIncludes ?? '',
  mode: fault.mode,
  count: fault.count ?? 1,
  delayMs: fault.delayMs ?? (fault.mode === 'reorder' ? 1000 : 0),
  declineCode: fault.declineCode ?? 'generic_decline',
  message: fault.message ?? 'Your card was declined.',
});

/** Faults at random from now on (see StripeChaos), or none when `settings` is undefined. */
export function setChaos(state: SimulatorState, settings: StripeChaos | undefined): void {
  state.chaos = settings && {
    settings,
    random: settings.seed === undefined ? Math.random : seededRandom(settings.seed),
  };
}

/**
 * The faults a call meets: the first armed call fault and the first armed webhook fault it
 * matches, each used up by one, or else the ones chaos draws; each counted.
 */
export function takeFaults(state: SimulatorState, request: Request): CallFaults {
  const call = takeArmed(state, request, false) ?? drawn(state, request, callModes);
  const webhook = takeArmed(state, request, true) ?? drawn(state, request, webhookFaultModes);
  for (const fault of [call, webhook]) {
    if (fault) state.faultCounts[fault.mode] = (state.faultCounts[fault.mode] ?? 0) + 1;
  }
  return {
    call: call as CallFaults['call'],
    webhook: webhook as CallFaults['webhook'],
  };
}

/**
 * Sends the events a call's answer caused, as its webhook fault (if any) says: twice at once
 * (`duplicate`), or held a while and then newest first (`reorder`).
 */
export async function deliverUnder(
  state: SimulatorState,
  events: StripeEvent[],
  fault: CallFaults['webhook'],
): Promise<void> {
  if (fault?.mode === 'duplicate') {
    deliverAll(state, events);
    deliverAll(state, events);
    return;
  }
  if (fault?.mode === 'reorder') {
    await sleep(fault.delayMs, undefined, { ref: false });
    deliverAll(state, [...events].reverse());
    return;
  }
  deliverAll(state, events);
}

/** The first armed fault of the kind (webhook or call) the call matches, used up by one. */
function takeArmed(
  state: SimulatorState,
  request: Request,
  webhook: boolean,
): ArmedFault | undefined {
  const text = matchedText(state, request);
  const fault = state.faults.find(
    (candidate) =>
      isWebhookFault(candidate) === webhook &&
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

const callModes = ['error', 'drop', 'lost', 'hang', 'slow'] as const;
const webhookFaultModes = ['duplicate', 'reorder'] as const;

/** The fault of `modes` chaos draws for the call, if any: one draw, each mode its share. */
function drawn(
  state: SimulatorState,
  request: Request,
  modes: readonly (keyof StripeChaos & StripeFaultMode)[],
): ArmedFault | undefined {
  const { chaos } = state;
  if (!chaos || !request.path.startsWith(chaos.settings.pathPrefix ?? '/v1/')) return undefined;
  const { settings } = chaos;
  let draw = chaos.random();
  for (const mode of modes) {
    const share = settings[mode] ?? 0;
    if (draw < share) {
      const delays: Partial<Record<StripeFaultMode, number>> = {
        drop: settings.dropDelayMs,
        lost: settings.dropDelayMs,
        slow: settings.slowMs ?? 2000,
        reorder: settings.reorderMs ?? 1000,
      };
      return armed({ path: request.path, mode, delayMs: delays[mode] ?? 0 });
    }
    draw -= share;
  }
  return undefined;
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
