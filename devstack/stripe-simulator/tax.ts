import { forward, type SimulatorState } from './state.ts';
import { type Answer, type Json, now, type Request, stripeError, stripeId } from './wire.ts';

/**
 * Stripe Tax, simulated as payment outcomes are: stripe-mock validates each call and answers a
 * fixture whose amounts ignore the request, so this answers calculations in Stripe Tax's shape
 * computed from a small table of its own (below, not Stripe's registrations), keeps them, and
 * keeps the transactions recorded from them and their reversals for tests to read.
 */
const rates: Record<string, { percentage: string; bps: number; taxType: string }> = {
  DE: { percentage: '19.0', bps: 1900, taxType: 'vat' },
  FR: { percentage: '20.0', bps: 2000, taxType: 'vat' },
  GB: { percentage: '20.0', bps: 2000, taxType: 'vat' },
  'US-CA': { percentage: '7.25', bps: 725, taxType: 'sales_tax' },
};

/** Tax calculations and transactions: kept here; other Stripe Tax calls are stripe-mock's. */
export async function routeTax(state: SimulatorState, request: Request): Promise<Answer | null> {
  const { method, path } = request;
  if (method !== 'POST') return null;
  if (path === '/v1/tax/calculations') return calculate(state, request);
  if (path === '/v1/tax/transactions/create_from_calculation') {
    return transactionFromCalculation(state, request);
  }
  if (path === '/v1/tax/transactions/create_reversal') return reversal(state, request);
  return null;
}

/** n × bps / 10000 rounded half up, in integers (as Stripe rounds a line's tax). */
const taxOn = (amount: number, bps: number) => Math.floor((amount * bps * 2 + 10_000) / 20_000);

async function calculate(state: SimulatorState, request: Request): Promise<Answer> {
  const checked = await forward(state, request);
  if (checked.status >= 400) return checked;
  const form = request.form as {
    currency: string;
    line_items: { amount: string; tax_behavior?: string; tax_code?: string }[];
    customer_details: {
      address?: { country?: string; state?: string };
      taxability_override?: string;
    };
  };
  const address = form.customer_details.address ?? {};
  const country = String(address.country ?? '').toUpperCase();
  const place = address.state ? `${country}-${String(address.state).toUpperCase()}` : country;
  const rate = rates[place] ?? rates[country];
  const reverseCharge = form.customer_details.taxability_override === 'reverse_charge';
  const breakdown = form.line_items.map((item) => {
    const amount = Number(item.amount);
    const inclusive = item.tax_behavior === 'inclusive';
    const bps = !rate || reverseCharge || item.tax_code === 'txcd_00000000' ? 0 : rate.bps;
    const taxable = inclusive
      ? Math.floor((amount * 20_000 + 10_000 + bps) / (20_000 + 2 * bps))
      : amount;
    return {
      amount,
      inclusive,
      bps,
      taxable,
      tax: inclusive ? amount - taxable : taxOn(amount, bps),
    };
  });
  const exclusiveTax = breakdown.filter((b) => !b.inclusive).reduce((sum, b) => sum + b.tax, 0);
  const inclusiveTax = breakdown.filter((b) => b.inclusive).reduce((sum, b) => sum + b.tax, 0);
  const calculation: Json = {
    ...checked.body,
    id: stripeId('taxcalc'),
    object: 'tax.calculation',
    currency: form.currency,
    amount_total: breakdown.reduce((sum, b) => sum + b.amount, 0) + exclusiveTax,
    tax_amount_exclusive: exclusiveTax,
    tax_amount_inclusive: inclusiveTax,
    tax_breakdown: breakdown.map((b) => ({
      amount: b.tax,
      inclusive: b.inclusive,
      taxable_amount: b.taxable,
      taxability_reason: reverseCharge
        ? 'reverse_charge'
        : b.bps
          ? 'standard_rated'
          : 'not_collecting',
      tax_rate_details: {
        country,
        state: address.state ? String(address.state).toUpperCase() : null,
        percentage_decimal: reverseCharge || !rate ? '0.0' : rate.percentage,
        tax_type: rate?.taxType ?? null,
        flat_amount: null,
        rate_type: 'percentage',
      },
    })),
  };
  state.taxCalculations.set(String(calculation.id), calculation);
  return { status: 200, body: calculation };
}

async function transactionFromCalculation(
  state: SimulatorState,
  request: Request,
): Promise<Answer> {
  const checked = await forward(state, request);
  if (checked.status >= 400) return checked;
  const calculation = state.taxCalculations.get(String(request.form.calculation));
  if (!calculation) {
    return stripeError(404, {
      type: 'invalid_request_error',
      code: 'resource_missing',
      message: `No such tax calculation: '${String(request.form.calculation)}'`,
    });
  }
  const transaction: Json = {
    ...checked.body,
    id: stripeId('tax'),
    object: 'tax.transaction',
    type: 'transaction',
    reference: request.form.reference,
    currency: calculation.currency,
    created: now(),
    metadata: request.form.metadata ?? {},
    calculation: calculation.id,
    amount_total: calculation.amount_total,
  };
  state.taxTransactions.push(transaction);
  return { status: 200, body: transaction };
}

async function reversal(state: SimulatorState, request: Request): Promise<Answer> {
  const checked = await forward(state, request);
  if (checked.status >= 400) return checked;
  const { form } = request;
  const original = state.taxTransactions.find((each) => each.id === form.original_transaction);
  if (!original) {
    return stripeError(404, {
      type: 'invalid_request_error',
      code: 'resource_missing',
      message: `No such tax transaction: '${String(form.original_transaction)}'`,
    });
  }
  const reversed: Json = {
    ...checked.body,
    id: stripeId('tax'),
    object: 'tax.transaction',
    type: 'reversal',
    reference: form.reference,
    currency: original.currency,
    created: now(),
    metadata: form.metadata ?? {},
    reversal: { original_transaction: original.id },
    flat_amount: Number(form.flat_amount),
  };
  state.taxTransactions.push(reversed);
  return { status: 200, body: reversed };
}
