import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DiscountTerm } from './discounts.ts';
import { discountEnd, type RecurringCharge, recurringRevenue } from './recurring-revenue.ts';

const at = (iso: string) => new Date(iso);

describe('when a discount stops lowering what a subscription bills', () => {
  const anchor = at('2026-01-31T10:00:00.000Z');
  const cases: [
    label: string,
    term: DiscountTerm,
    interval: RecurringCharge['interval'],
    end: string | null,
  ][] = [
    ['forever: never', { duration: 'forever' }, 'month', null],
    ['once, monthly: the second period', { duration: 'once' }, 'month', '2026-02-28T10:00:00.000Z'],
    ['once, yearly: the second year', { duration: 'once' }, 'year', '2027-01-31T10:00:00.000Z'],
    [
      '3 months, monthly: the fourth period, back on the 31st',
      { duration: 'repeating', durationInMonths: 3 },
      'month',
      '2026-04-30T10:00:00.000Z',
    ],
    [
      '3 months, yearly: the whole first year',
      { duration: 'repeating', durationInMonths: 3 },
      'year',
      '2027-01-31T10:00:00.000Z',
    ],
    [
      '13 months, yearly: two years',
      { duration: 'repeating', durationInMonths: 13 },
      'year',
      '2028-01-31T10:00:00.000Z',
    ],
    [
      '2 months, weekly: the first week after Feb 28',
      { duration: 'repeating', durationInMonths: 2 },
      'week',
      '2026-03-07T10:00:00.000Z',
    ],
  ];
  for (const [label, term, interval, end] of cases) {
    it(label, () => {
      const found = discountEnd(term, { appliedAt: anchor, billingAnchor: anchor, interval });
      assert.equal(found?.toISOString() ?? null, end);
    });
  }
});

describe('MRR × 12 of a subscription', () => {
  const base: RecurringCharge = {
    interval: 'month',
    price: { amountType: 'fixed', priceAmount: 1000 },
    choice: {},
    discount: null,
    billingAnchor: at('2026-01-01T00:00:00Z'),
    discountAppliedAt: at('2026-01-01T00:00:00Z'),
  };
  const cases: [label: string, charge: RecurringCharge, expected: [number, number]][] = [
    ['monthly, no discount', base, [12_000, 12_000]],
    ['yearly counts once a year', { ...base, interval: 'year' }, [1000, 1000]],
    ['weekly counts 4 a month', { ...base, interval: 'week' }, [48_000, 48_000]],
    [
      'seat-based times its seats',
      { ...base, price: { amountType: 'seat_based', pricePerSeat: 700 }, choice: { seats: 3 } },
      [25_200, 25_200],
    ],
    [
      'pay what you want: the amount chosen',
      { ...base, price: { amountType: 'custom', presetAmount: 500 }, choice: { amount: 1234 } },
      [14_808, 14_808],
    ],
    ['metered only: nothing', { ...base, price: null }, [0, 0]],
    [
      '20 % off forever',
      { ...base, discount: { type: 'percentage', basisPoints: 2000, duration: 'forever' } },
      [9600, 12_000],
    ],
    [
      'a fixed discount above the amount takes it all',
      { ...base, discount: { type: 'fixed', amount: 5000, duration: 'once' } },
      [0, 12_000],
    ],
  ];
  for (const [label, charge, [discounted, full]] of cases) {
    it(label, () => {
      const revenue = recurringRevenue(charge);
      assert.deepEqual([revenue.discounted, revenue.full], [discounted, full]);
    });
  }
});
