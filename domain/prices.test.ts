import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type CustomAmounts,
  canonicalDecimal,
  checkoutPrice,
  customAmountProblem,
  customAmountsProblem,
  type PriceListEntry,
  priceListViolations,
  type SelectablePrice,
  unitAmountText,
} from './prices.ts';

describe('canonicalDecimal', () => {
  const cases: [stored: string, wire: string][] = [
    ['0.500000000000', '0.5'],
    ['12.000000000000', '12'],
    ['0.000000000001', '0.000000000001'],
    ['100', '100'],
    ['10.250000000000', '10.25'],
  ];
  for (const [stored, wire] of cases) {
    it(`${stored} → ${wire}`, () => assert.equal(canonicalDecimal(stored), wire));
  }
});

describe('unitAmountText', () => {
  const cases: [sent: number | string, text: string | null][] = [
    [0.5, '0.5'],
    [12, '12'],
    ['0.000000000001', '0.000000000001'],
    ['007.50', '7.5'],
    [1e-7, '0.0000001'],
    ['99999.999999999999', '99999.999999999999'],
    // Not positive.
    [0, null],
    ['0.000', null],
    [-1, null],
    ['-0.5', null],
    // More than 12 decimals, or 17 digits in all.
    ['0.0000000000001', null],
    [1e-13, null],
    ['999999.999999999999', null],
    // Not a decimal.
    ['abc', null],
    ['1e3', null],
    ['', null],
    [Number.NaN, null],
    [Number.POSITIVE_INFINITY, null],
  ];
  for (const [sent, text] of cases) {
    it(`${JSON.stringify(sent)} → ${JSON.stringify(text)}`, () => {
      assert.equal(unitAmountText(sent), text);
    });
  }
});

describe('customAmountsProblem', () => {
  const amounts = (
    min: number | null,
    preset: number | null,
    max: number | null,
  ): CustomAmounts => ({
    minimumAmount: min,
    presetAmount: preset,
    maximumAmount: max,
  });
  const cases: [amounts: CustomAmounts, field: string | null][] = [
    [amounts(null, null, null), null],
    [amounts(100, 500, 1000), null],
    [amounts(100, 100, 100), null],
    [amounts(100, null, 1000), null],
    [amounts(null, 5000, null), null],
    [amounts(1000, null, 100), 'minimum_amount'],
    [amounts(1000, 500, null), 'preset_amount'],
    [amounts(null, 2000, 1000), 'preset_amount'],
    [amounts(100, 2000, 1000), 'preset_amount'],
  ];
  for (const [input, field] of cases) {
    it(`min ${input.minimumAmount} ≤ preset ${input.presetAmount} ≤ max ${input.maximumAmount}: ${field ?? 'ok'}`, () => {
      assert.equal(customAmountsProblem(input)?.field ?? null, field);
    });
  }
});

describe('priceListViolations', () => {
  const fresh = (amountType: string, meterId?: string): PriceListEntry => ({
    amountType,
    meterId,
    isNew: true,
  });
  const kept = (amountType: string): PriceListEntry => ({ amountType, isNew: false });
  const cases: [
    name: string,
    entries: PriceListEntry[],
    recurring: boolean,
    expected: [index: number | null, message: string][],
  ][] = [
    ['one fixed price', [fresh('fixed')], false, []],
    ['one free price', [fresh('free')], true, []],
    [
      'a static price and metered ones',
      [fresh('fixed'), fresh('metered_unit', 'm1'), fresh('metered_unit', 'm2')],
      true,
      [],
    ],
    ['metered prices only', [fresh('metered_unit', 'm1')], true, []],
    ['no price', [], true, [[null, 'At least one price is required.']]],
    [
      'two static prices',
      [fresh('fixed'), fresh('custom')],
      true,
      [[null, 'Only one static price is allowed.']],
    ],
    [
      'a kept and a new static price',
      [kept('free'), fresh('fixed')],
      false,
      [[null, 'Only one static price is allowed.']],
    ],
    [
      'seat-based beside fixed',
      [fresh('seat_based'), fresh('fixed')],
      true,
      [[null, 'Only one static price is allowed.']],
    ],
    [
      'a metered price on a one-time product',
      [fresh('fixed'), fresh('metered_unit', 'm1')],
      false,
      [[1, 'Metered pricing is not supported on one-time products.']],
    ],
    [
      'one meter behind two new prices',
      [fresh('metered_unit', 'm1'), fresh('metered_unit', 'm1')],
      true,
      [[1, 'Meter is already used for another price.']],
    ],
    ['a kept metered price on any product', [kept('metered_unit'), fresh('fixed')], true, []],
  ];
  for (const [name, entries, recurring, expected] of cases) {
    it(name, () => {
      const violations = priceListViolations(entries, { recurring });
      assert.deepEqual(
        violations.map((violation) => [violation.index, violation.message]),
        expected,
      );
    });
  }
});

describe('checkoutPrice', () => {
  const at = (minute: number) => new Date(Date.UTC(2025, 0, 1, 0, minute));
  const price = (id: string, amountType: string, minute: number, isArchived = false) => ({
    id,
    amountType,
    isArchived,
    createdAt: at(minute),
  });
  const metered = price('metered', 'metered_unit', 1);
  const fixed = price('fixed', 'fixed', 2);
  const archived = price('archived', 'free', 0, true);
  const cases: [
    name: string,
    prices: SelectablePrice[],
    requested: string | null,
    chosen: string | null,
  ][] = [
    ['the static price over an earlier metered one', [metered, fixed], null, 'fixed'],
    ['never an archived price', [archived, fixed], null, 'fixed'],
    [
      'the first metered price when none is static',
      [price('m2', 'metered_unit', 5), metered],
      null,
      'metered',
    ],
    ['the requested live price', [metered, fixed], 'metered', 'metered'],
    ['no requested price that is archived', [archived, fixed], 'archived', null],
    ['no requested price of another product', [fixed], 'elsewhere', null],
    ['nothing without live prices', [archived], null, null],
  ];
  for (const [name, prices, requested, chosen] of cases) {
    it(name, () => assert.equal(checkoutPrice(prices, requested)?.id ?? null, chosen));
  }
});

describe('customAmountProblem', () => {
  const cases: [bounds: [number | null, number | null], amount: number, problem: string | null][] =
    [
      [[null, null], 50, null],
      [[null, null], 49, 'Amount is below minimum.'],
      [[null, null], 99_999_999, null],
      [[null, null], 100_000_000, 'Amount is above maximum.'],
      [[1000, 5000], 1000, null],
      [[1000, 5000], 5000, null],
      [[1000, 5000], 999, 'Amount is below minimum.'],
      [[1000, 5000], 5001, 'Amount is above maximum.'],
      [[1000, null], 10.5, 'Amount must be a whole number of cents.'],
    ];
  for (const [[minimumAmount, maximumAmount], amount, problem] of cases) {
    it(`${amount} within ${minimumAmount}..${maximumAmount}: ${problem ?? 'ok'}`, () => {
      assert.equal(customAmountProblem({ minimumAmount, maximumAmount }, amount), problem);
    });
  }
});
