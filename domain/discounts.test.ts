import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  addMonths,
  type DiscountAvailability,
  type DiscountReduction,
  type DiscountTerm,
  discountAmount,
  discountAppliesToPeriod,
  discountRefusal,
  isDiscountRedeemable,
} from './discounts.ts';

const at = (iso: string) => new Date(iso);

describe('discount redeemability at a moment', () => {
  const open: DiscountAvailability = {
    startsAt: null,
    endsAt: null,
    maxRedemptions: null,
    redemptionsCount: 0,
    productIds: [],
  };
  const window = {
    ...open,
    startsAt: at('2025-03-01T00:00:00Z'),
    endsAt: at('2025-03-31T00:00:00Z'),
  };
  const cases: [
    label: string,
    discount: DiscountAvailability,
    moment: string,
    productId: string,
    refusal: ReturnType<typeof discountRefusal>,
  ][] = [
    ['unrestricted', open, '2025-01-01T00:00:00Z', 'p1', null],
    ['before its start', window, '2025-02-28T23:59:59Z', 'p1', 'not_started'],
    ['at its start', window, '2025-03-01T00:00:00Z', 'p1', null],
    ['at its end', window, '2025-03-31T00:00:00Z', 'p1', null],
    ['after its end', window, '2025-03-31T00:00:01Z', 'p1', 'ended'],
    [
      'with redemptions left',
      { ...open, maxRedemptions: 2, redemptionsCount: 1 },
      '2025-01-01T00:00:00Z',
      'p1',
      null,
    ],
    [
      'with every redemption used',
      { ...open, maxRedemptions: 2, redemptionsCount: 2 },
      '2025-01-01T00:00:00Z',
      'p1',
      'exhausted',
    ],
    [
      'for a listed product',
      { ...open, productIds: ['p1', 'p2'] },
      '2025-01-01T00:00:00Z',
      'p2',
      null,
    ],
    [
      'for an unlisted product',
      { ...open, productIds: ['p1'] },
      '2025-01-01T00:00:00Z',
      'p3',
      'product_not_applicable',
    ],
    // The time window is checked before the rest.
    [
      'ended and exhausted',
      { ...window, maxRedemptions: 1, redemptionsCount: 1 },
      '2025-04-01T00:00:00Z',
      'p1',
      'ended',
    ],
  ];
  for (const [label, discount, moment, productId, refusal] of cases) {
    it(`${label}: ${refusal ?? 'redeemable'}`, () => {
      const when = { at: at(moment), productId };
      assert.equal(discountRefusal(discount, when), refusal);
      assert.equal(isDiscountRedeemable(discount, when), refusal === null);
    });
  }
});

describe('discount amount for a price amount', () => {
  const percent = (basisPoints: number): DiscountReduction => ({ type: 'percentage', basisPoints });
  const fixed = (amount: number): DiscountReduction => ({ type: 'fixed', amount });
  const cases: [label: string, discount: DiscountReduction, amount: number, expected: number][] = [
    ['10 % of $10', percent(1000), 1000, 100],
    ['100 % takes everything', percent(10_000), 4999, 4999],
    ['0.01 % of 1 cent rounds down', percent(1), 1, 0],
    ['12.5 % of 1 cent rounds down (0.125)', percent(1250), 1, 0],
    ['50 % of 1 cent rounds half up (0.5)', percent(5000), 1, 1],
    ['25 % of 3 cents rounds up (0.75)', percent(2500), 3, 1],
    ['33.33 % of 1500 is 499.95 → 500', percent(3333), 1500, 500],
    ['15 % of 1050 is exactly 157.5 → 158', percent(1500), 1050, 158],
    ['25 % of 1 cent rounds down (0.25)', percent(2500), 1, 0],
    // A negative amount (a credit) rounds away from zero too.
    ['50 % of -1 cent → -1', percent(5000), -1, -1],
    // Past 2^53 / 10000 a float product would lose cents; integer arithmetic does not.
    [
      '10 % of 99 999 999 999 999 (no float error)',
      percent(1000),
      99_999_999_999_999,
      10_000_000_000_000,
    ],
    ['1 % of 0', percent(100), 0, 0],
    ['fixed below the amount', fixed(500), 2000, 500],
    ['fixed above the amount is capped', fixed(5000), 2000, 2000],
    ['fixed zero', fixed(0), 2000, 0],
  ];
  for (const [label, discount, amount, expected] of cases) {
    it(label, () => assert.equal(discountAmount(discount, amount), expected));
  }
});

describe('calendar month arithmetic', () => {
  const cases: [from: string, months: number, expected: string][] = [
    ['2025-01-15T10:00:00.000Z', 1, '2025-02-15T10:00:00.000Z'],
    ['2025-01-31T00:00:00.000Z', 1, '2025-02-28T00:00:00.000Z'],
    ['2024-01-31T00:00:00.000Z', 1, '2024-02-29T00:00:00.000Z'],
    ['2025-11-30T00:00:00.000Z', 3, '2026-02-28T00:00:00.000Z'],
    ['2025-05-31T00:00:00.000Z', 0, '2025-05-31T00:00:00.000Z'],
    ['2025-03-31T00:00:00.000Z', -1, '2025-02-28T00:00:00.000Z'],
  ];
  for (const [from, months, expected] of cases) {
    it(`${from} + ${months} months = ${expected}`, () => {
      assert.equal(addMonths(at(from), months).toISOString(), expected);
    });
  }
});

describe('billing periods a discount covers', () => {
  const appliedAt = at('2025-01-31T00:00:00Z');
  const threeMonths: DiscountTerm = { duration: 'repeating', durationInMonths: 3 };
  const twelveMonths: DiscountTerm = { duration: 'repeating', durationInMonths: 12 };
  const cases: [label: string, term: DiscountTerm, periodStart: string, applies: boolean][] = [
    ['once: the first period', { duration: 'once' }, '2025-01-31T00:00:00Z', true],
    ['once: not the second', { duration: 'once' }, '2025-02-28T00:00:00Z', false],
    ['forever: years later', { duration: 'forever' }, '2030-01-31T00:00:00Z', true],
    ['3 months: month 1', threeMonths, '2025-01-31T00:00:00Z', true],
    ['3 months: month 2', threeMonths, '2025-02-28T00:00:00Z', true],
    ['3 months: month 3', threeMonths, '2025-03-31T00:00:00Z', true],
    ['3 months: month 4 no more', threeMonths, '2025-04-30T00:00:00Z', false],
    [
      '1 month: only the first',
      { duration: 'repeating', durationInMonths: 1 },
      '2025-02-28T00:00:00Z',
      false,
    ],
    ['12 months on yearly: the first year', twelveMonths, '2025-01-31T00:00:00Z', true],
    ['12 months on yearly: not the second', twelveMonths, '2026-01-31T00:00:00Z', false],
  ];
  for (const [label, term, periodStart, applies] of cases) {
    it(label, () => {
      assert.equal(
        discountAppliesToPeriod(term, { appliedAt, periodStart: at(periodStart) }),
        applies,
      );
    });
  }
});
