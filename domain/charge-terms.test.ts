import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type ChargeTermsInput,
  chargeTerms,
  firstRenewalAt,
  intervalCount,
  renewalPromise,
} from './charge-terms.ts';

describe('charge terms in words', () => {
  const monthly: ChargeTermsInput = {
    amount: 2900,
    discountedAmount: 2900,
    currency: 'usd',
    interval: 'month',
    discount: null,
    trial: null,
  };
  const twentyOff = { ...monthly, discountedAmount: 2320 };
  const cases: [label: string, input: ChargeTermsInput, expected: string | null][] = [
    ['a one-time purchase says nothing more than its total', { ...monthly, interval: null }, null],
    ['a plain monthly plan', monthly, '$29.00 / month'],
    [
      'a discount for three months',
      { ...twentyOff, discount: { duration: 'repeating', durationInMonths: 3 } },
      '$23.20 / month for 3 months, then $29.00',
    ],
    [
      'a discount for one month',
      { ...twentyOff, discount: { duration: 'repeating', durationInMonths: 1 } },
      '$23.20 / month for 1 month, then $29.00',
    ],
    [
      'a yearly plan counts the years its discount covers',
      {
        ...twentyOff,
        interval: 'year',
        discount: { duration: 'repeating', durationInMonths: 13 },
      },
      '$23.20 / year for 2 years, then $29.00',
    ],
    [
      'twelve months of a yearly plan are one year',
      {
        ...twentyOff,
        interval: 'year',
        discount: { duration: 'repeating', durationInMonths: 12 },
      },
      '$23.20 / year for 1 year, then $29.00',
    ],
    [
      'a discount once',
      { ...twentyOff, discount: { duration: 'once' } },
      '$23.20 for the first month, then $29.00 / month',
    ],
    ['a discount forever', { ...twentyOff, discount: { duration: 'forever' } }, '$23.20 / month'],
    [
      'a discount that takes nothing off is not mentioned',
      { ...monthly, discount: { duration: 'repeating', durationInMonths: 3 } },
      '$29.00 / month',
    ],
    [
      'a trial',
      { ...monthly, trial: { interval: 'day', count: 7 } },
      'free for 7 days, then $29.00 / month',
    ],
    [
      'a trial, then a discount',
      {
        ...twentyOff,
        discount: { duration: 'repeating', durationInMonths: 3 },
        trial: { interval: 'month', count: 1 },
      },
      'free for 1 month, then $23.20 / month for 3 months, then $29.00',
    ],
    [
      'a weekly plan with a discount counted in months',
      {
        ...twentyOff,
        interval: 'week',
        discount: { duration: 'repeating', durationInMonths: 2 },
      },
      '$23.20 / week for 2 months, then $29.00',
    ],
  ];
  for (const [label, input, expected] of cases) {
    it(label, () => assert.equal(chargeTerms(input), expected));
  }

  it('counts intervals in the singular and plural', () => {
    assert.equal(intervalCount(1, 'week'), '1 week');
    assert.equal(intervalCount(14, 'day'), '14 days');
  });

  it('promises the renewal by its interval', () => {
    assert.equal(renewalPromise('month'), 'renews monthly until canceled');
    assert.equal(renewalPromise('year'), 'renews yearly until canceled');
    assert.equal(renewalPromise('week'), 'renews weekly until canceled');
    assert.equal(renewalPromise('day'), 'renews daily until canceled');
  });

  it('dates the first renewal at the trial end, else one interval on', () => {
    const start = new Date('2026-01-31T10:00:00Z');
    assert.equal(firstRenewalAt(start, 'month', null).toISOString(), '2026-02-28T10:00:00.000Z');
    assert.equal(firstRenewalAt(start, 'week', null).toISOString(), '2026-02-07T10:00:00.000Z');
    const trialEnd = new Date('2026-02-07T10:00:00Z');
    assert.equal(firstRenewalAt(start, 'month', trialEnd), trialEnd);
  });
});
