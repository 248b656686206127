// A workflow for payments.test.ts only (bundled by its in-test worker): it keeps every payment
// outcome the Stripe webhook signals, until told it is done.
import { condition, defineQuery, defineSignal, setHandler } from '@temporalio/workflow';
import type { PaymentOutcome } from '../../domain/payments.ts';
import { paymentOutcomeSignal } from '../../processes/payment-outcome.ts';

export const receivedOutcomesQuery = defineQuery<PaymentOutcome[]>('receivedOutcomes');
export const doneSignal = defineSignal('done');

export async function collectPaymentOutcomes(): Promise<PaymentOutcome[]> {
  const outcomes: PaymentOutcome[] = [];
  let done = false;
  setHandler(paymentOutcomeSignal, (outcome) => {
    outcomes.push(outcome);
  });
  setHandler(receivedOutcomesQuery, () => outcomes);
  setHandler(doneSignal, () => {
    done = true;
  });
  await condition(() => done);
  return outcomes;
}
