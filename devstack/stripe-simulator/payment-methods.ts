import { forward, type SimulatorState } from './state.ts';
import { cardOf } from './test-cards.ts';
import { type Json, now, type Request } from './wire.ts';

/** A card payment method as stripe-mock shapes it, with the test card's brand and digits. */
export async function paymentMethod(
  state: SimulatorState,
  request: Request,
  id: string,
): Promise<Json> {
  const known = state.paymentMethods.get(id);
  if (known) return known;
  const card = cardOf(id);
  state.paymentMethodFixture ??= forward(state, {
    ...request,
    method: 'GET',
    path: '/v1/payment_methods/pm_card_visa',
    search: '',
  });
  const fixture = (await state.paymentMethodFixture).body;
  const fixtureCard = (fixture.card ?? {}) as Json;
  const method = {
    ...fixture,
    id,
    created: now(),
    customer: null,
    metadata: {},
    card: {
      ...fixtureCard,
      brand: card.brand,
      display_brand: card.brand,
      last4: card.last4,
      exp_month: 12,
      exp_year: new Date().getUTCFullYear() + 3,
      wallet: null,
    },
  };
  state.paymentMethods.set(id, method);
  return method;
}
