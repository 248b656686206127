import { route } from './routes.ts';
import type { SimulatorState } from './state.ts';
import { type Answer, now, type Request, stripeError } from './wire.ts';

const idempotencyKeyOf = (request: Request) => {
  const key = request.headers['idempotency-key'];
  return request.method === 'POST' && typeof key === 'string' ? key : undefined;
};

/** What a key's first call is told apart by: a repeat must name the same path and parameters. */
const fingerprintOf = (request: Request) => `${request.path}?${request.rawBody}`;

/** A POST whose Idempotency-Key already has an answer for these parameters. */
export function isReplay(state: SimulatorState, request: Request): boolean {
  const key = idempotencyKeyOf(request);
  if (key === undefined) return false;
  return state.idempotent.get(key)?.fingerprint === fingerprintOf(request);
}

/** The answer as it is now: a replay shows it so, whatever happens to the objects later. */
const snapshot = (state: SimulatorState, request: Request) =>
  route(state, request).then((answer) => ({ ...answer, body: structuredClone(answer.body) }));

/** The call's answer, once per Idempotency-Key: a repeat gets the first answer again. */
export function answerOnce(
  state: SimulatorState,
  request: Request,
): { answer: Promise<Answer>; replayed: boolean } {
  const key = idempotencyKeyOf(request);
  if (key === undefined) return { answer: snapshot(state, request), replayed: false };
  const fingerprint = fingerprintOf(request);
  const stored = state.idempotent.get(key);
  if (stored && stored.fingerprint !== fingerprint) {
    return {
      answer: Promise.resolve(
        stripeError(400, {
          type: 'idempotency_error',
          message:
            'Keys for idempotent requests can only be used with the same parameters they were first used with.',
        }),
      ),
      replayed: false,
    };
  }
  if (stored) return { answer: stored.answer, replayed: true };
  const answer = snapshot(state, request);
  state.idempotent.set(key, { fingerprint, answer, storedAt: now() });
  forgetOldKeysAndEvents(state);
  // Stripe keeps no result for a call that failed on its side: a retry runs it afresh.
  answer.then(
    (result) => result.status >= 500 && state.idempotent.delete(key),
    () => state.idempotent.delete(key),
  );
  return { answer, replayed: false };
}

/** Stripe keeps idempotency keys for 24 hours; so do we, and events as long (`npm start`). */
function forgetOldKeysAndEvents(state: SimulatorState) {
  const dayAgo = now() - 86_400;
  for (const [key, { storedAt }] of state.idempotent) {
    if (storedAt > dayAgo) break;
    state.idempotent.delete(key);
  }
  for (const [id, { created }] of state.events) {
    if (created > dayAgo) break;
    state.events.delete(id);
  }
}
