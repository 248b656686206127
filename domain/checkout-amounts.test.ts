import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type BillingAddressFields,
  billingAddressFields,
  type CheckoutPriceFields,
  checkoutAmounts,
  checkoutFlags,
  missingAddressFields,
  priceAmountOf,
  trialEnd,
} from './checkout-amounts.ts';
import { computeTax } from './tax.ts';

describe('the amount a selected price charges', () => {
  const custom = (bounds: Partial<CheckoutPriceFields>): CheckoutPriceFields => ({
    amountType: 'custom',
    minimumAmount: null,
    maximumAmount: null,
    presetAmount: null,
    ...bounds,
  });
  const cases: [
    label: string,
    price: CheckoutPriceFields,
    choice: { amount?: number | null; seats?: number | null },
    amount: number,
  ][] = [
    ['fixed', { amountType: 'fixed', priceAmount: 2500 }, {}, 2500],
    [
      'fixed, a chosen amount ignored',
      { amountType: 'fixed', priceAmount: 2500 },
      { amount: 1 },
      2500,
    ],
    ['free', { amountType: 'free' }, {}, 0],
    ['metered: nothing up front', { amountType: 'metered_unit' }, {}, 0],
    ['custom, chosen', custom({ minimumAmount: 500 }), { amount: 1200 }, 1200],
    ['custom, preset', custom({ minimumAmount: 500, presetAmount: 900 }), {}, 900],
    ['custom, minimum', custom({ minimumAmount: 500 }), {}, 500],
    ['custom, unbounded: $10', custom({}), {}, 1000],
    ['custom, fallback above the maximum', custom({ maximumAmount: 800 }), {}, 800],
    ['seat based, one seat', { amountType: 'seat_based', pricePerSeat: 300 }, {}, 300],
    ['seat based, four seats', { amountType: 'seat_based', pricePerSeat: 300 }, { seats: 4 }, 1200],
  ];
  for (const [label, price, choice, amount] of cases) {
    it(`${label}: ${amount}`, () => assert.equal(priceAmountOf(price, choice), amount));
  }
});

describe('checkout amounts', () => {
  it('are the amount itself without a discount; tax unknown', () => {
    assert.deepEqual(checkoutAmounts(2500, null), {
      amount: 2500,
      discountAmount: 0,
      netAmount: 2500,
      taxAmount: null,
      taxLines: [],
      totalAmount: 2500,
    });
  });

  it('take a percentage off, rounded half away from zero', () => {
    const amounts = checkoutAmounts(999, { type: 'percentage', basisPoints: 1500 });
    assert.equal(amounts.discountAmount, 150);
    assert.equal(amounts.netAmount, 849);
    assert.equal(amounts.totalAmount, 849);
  });

  it('take a fixed amount off, never more than the amount', () => {
    assert.equal(checkoutAmounts(2500, { type: 'fixed', amount: 1000 }).totalAmount, 1500);
    assert.deepEqual(checkoutAmounts(500, { type: 'fixed', amount: 1000 }), {
      amount: 500,
      discountAmount: 500,
      netAmount: 0,
      taxAmount: null,
      taxLines: [],
      totalAmount: 0,
    });
  });

  it('come to nothing with a 100 % discount', () => {
    assert.equal(checkoutAmounts(2500, { type: 'percentage', basisPoints: 10_000 }).totalAmount, 0);
  });

  const taxAt = (rateBps: number, inclusive: boolean) => (amount: number) =>
    computeTax({
      rates: [{ country: 'DE', subdivision: null, rateBps, displayName: 'VAT DE', inclusive }],
      sellerCountry: 'DE',
      behavior: 'taxable',
      buyer: { country: 'DE', state: null, taxId: null },
      amount,
    });

  it('add exclusive tax on the net, after the discount', () => {
    const amounts = checkoutAmounts(
      4900,
      { type: 'percentage', basisPoints: 1000 },
      taxAt(1900, false),
    );
    // 4410 × 19 % = 837.9 → 838
    assert.deepEqual(
      [amounts.netAmount, amounts.taxAmount, amounts.totalAmount, amounts.taxLines.length],
      [4410, 838, 5248, 1],
    );
  });

  it('carve inclusive tax out of the net, which stays the total', () => {
    const amounts = checkoutAmounts(4900, null, taxAt(2100, true));
    assert.deepEqual(
      [amounts.netAmount, amounts.taxAmount, amounts.totalAmount],
      [4900, 850, 4900],
    );
  });
});

describe('checkout flags', () => {
  const cases: [
    label: string,
    input: Parameters<typeof checkoutFlags>[0],
    expected: ReturnType<typeof checkoutFlags>,
  ][] = [
    [
      'one-time paid',
      { priceTypes: ['fixed'], recurring: false, amountDue: 2500, trial: false },
      {
        isFreeProductPrice: false,
        isPaymentRequired: true,
        isPaymentSetupRequired: false,
        isPaymentFormRequired: true,
        isDiscountApplicable: true,
      },
    ],
    [
      'one-time free',
      { priceTypes: ['free'], recurring: false, amountDue: 0, trial: false },
      {
        isFreeProductPrice: true,
        isPaymentRequired: false,
        isPaymentSetupRequired: false,
        isPaymentFormRequired: false,
        isDiscountApplicable: false,
      },
    ],
    [
      'one-time, discounted to nothing',
      { priceTypes: ['fixed'], recurring: false, amountDue: 0, trial: false },
      {
        isFreeProductPrice: false,
        isPaymentRequired: false,
        isPaymentSetupRequired: false,
        isPaymentFormRequired: false,
        isDiscountApplicable: true,
      },
    ],
    [
      'recurring paid',
      { priceTypes: ['fixed', 'metered_unit'], recurring: true, amountDue: 900, trial: false },
      {
        isFreeProductPrice: false,
        isPaymentRequired: true,
        isPaymentSetupRequired: true,
        isPaymentFormRequired: true,
        isDiscountApplicable: true,
      },
    ],
    [
      'one-time, covered by the customer balance',
      { priceTypes: ['fixed'], recurring: false, amountDue: 0, trial: false },
      {
        isFreeProductPrice: false,
        isPaymentRequired: false,
        isPaymentSetupRequired: false,
        isPaymentFormRequired: false,
        isDiscountApplicable: true,
      },
    ],
    [
      'recurring in trial: a card for later, nothing now',
      { priceTypes: ['fixed'], recurring: true, amountDue: 900, trial: true },
      {
        isFreeProductPrice: false,
        isPaymentRequired: false,
        isPaymentSetupRequired: true,
        isPaymentFormRequired: true,
        isDiscountApplicable: true,
      },
    ],
    [
      'recurring free',
      { priceTypes: ['free'], recurring: true, amountDue: 0, trial: false },
      {
        isFreeProductPrice: true,
        isPaymentRequired: false,
        isPaymentSetupRequired: false,
        isPaymentFormRequired: false,
        isDiscountApplicable: false,
      },
    ],
  ];
  for (const [label, input, expected] of cases) {
    it(label, () => assert.deepEqual(checkoutFlags(input), expected));
  }
});

describe('billing address fields', () => {
  const full: BillingAddressFields = {
    country: 'required',
    state: 'required',
    city: 'required',
    postal_code: 'required',
    line1: 'required',
    line2: 'optional',
  };
  const countryOnly: BillingAddressFields = {
    country: 'required',
    state: 'disabled',
    city: 'disabled',
    postal_code: 'disabled',
    line1: 'disabled',
    line2: 'disabled',
  };
  const plain = { requireBillingAddress: false, isBusinessCustomer: false };
  const cases: [
    label: string,
    input: Parameters<typeof billingAddressFields>[0],
    BillingAddressFields,
  ][] = [
    ['no country yet', { ...plain, country: null }, countryOnly],
    ['United States', { ...plain, country: 'US' }, full],
    [
      'Canada: the province too',
      { ...plain, country: 'CA' },
      { ...countryOnly, state: 'required' },
    ],
    ['elsewhere', { ...plain, country: 'FR' }, countryOnly],
    ['required by the seller', { ...plain, country: 'FR', requireBillingAddress: true }, full],
    ['a business', { ...plain, country: 'DE', isBusinessCustomer: true }, full],
  ];
  for (const [label, input, expected] of cases) {
    it(label, () => assert.deepEqual(billingAddressFields(input), expected));
  }

  it('names the required parts an address leaves empty', () => {
    const address = {
      line1: '1 Main St',
      line2: null,
      postalCode: null,
      city: 'Springfield',
      state: null,
      country: 'US',
    };
    assert.deepEqual(missingAddressFields(full, address), ['state', 'postal_code']);
    assert.deepEqual(missingAddressFields(countryOnly, address), []);
  });
});

describe('trial end', () => {
  const start = new Date('2025-01-31T12:00:00Z');
  const cases: [interval: 'day' | 'week' | 'month' | 'year', count: number, end: string][] = [
    ['day', 14, '2025-02-14T12:00:00.000Z'],
    ['week', 2, '2025-02-14T12:00:00.000Z'],
    ['month', 1, '2025-02-28T12:00:00.000Z'],
    ['year', 1, '2026-01-31T12:00:00.000Z'],
  ];
  for (const [interval, count, end] of cases) {
    it(`${count} ${interval}(s) from ${start.toISOString()}: ${end}`, () => {
      assert.equal(trialEnd(start, interval, count).toISOString(), end);
    });
  }
});
