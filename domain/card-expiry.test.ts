import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cardExpiresBefore, cardStopsWorkingAt } from './card-expiry.ts';

describe('card expiry', () => {
  it('works through the last day of its month', () => {
    assert.equal(
      cardStopsWorkingAt({ expMonth: 2, expYear: 2028 }).toISOString(),
      '2028-03-01T00:00:00.000Z',
    );
    assert.equal(
      cardStopsWorkingAt({ expMonth: 12, expYear: 2027 }).toISOString(),
      '2028-01-01T00:00:00.000Z',
    );
  });

  const cases: [string, { expMonth: number; expYear: number }, string, boolean][] = [
    ['renewal in the expiry month', { expMonth: 3, expYear: 2027 }, '2027-03-31T23:59:59Z', false],
    ['renewal the month after', { expMonth: 3, expYear: 2027 }, '2027-04-01T00:00:00Z', true],
    ['renewal a year later', { expMonth: 3, expYear: 2027 }, '2028-03-15T00:00:00Z', true],
    ['renewal long before', { expMonth: 3, expYear: 2027 }, '2026-12-01T00:00:00Z', false],
  ];
  for (const [name, card, renewal, expected] of cases) {
    it(name, () => assert.equal(cardExpiresBefore(card, new Date(renewal)), expected));
  }
});
