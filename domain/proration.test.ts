import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { prorate } from './proration.ts';

// A 30-day period: each day is exactly a thirtieth of it.
const periodStart = new Date('2026-04-01T00:00:00Z');
const periodEnd = new Date('2026-05-01T00:00:00Z');
const day = (n: number) => new Date(periodStart.getTime() + n * 86_400_000);

describe('proration of a plan change', () => {
  it('credits the unused old amount and debits the remaining new amount', () => {
    // 10 of 30 days used: two thirds of each amount remain.
    assert.deepEqual(
      prorate({ oldAmount: 3000, newAmount: 6000, periodStart, periodEnd, at: day(10) }),
      {
        unusedCredit: -2000,
        remainingCharge: 4000,
        difference: 2000,
      },
    );
  });

  it('gives back the difference of a downgrade', () => {
    assert.deepEqual(
      prorate({ oldAmount: 6000, newAmount: 1500, periodStart, periodEnd, at: day(20) }),
      {
        unusedCredit: -2000,
        remainingCharge: 500,
        difference: -1500,
      },
    );
  });

  it('rounds each line half away from zero, exactly', () => {
    // One day of 30 left: 1000/30 = 33.33 → 33, and 1005/30 = 33.5 → 34.
    assert.deepEqual(
      prorate({ oldAmount: 1000, newAmount: 1005, periodStart, periodEnd, at: day(29) }),
      {
        unusedCredit: -33,
        remainingCharge: 34,
        difference: 1,
      },
    );
  });

  it('stays exact for amounts whose products exceed a double', () => {
    const yearStart = new Date('2026-01-01T00:00:00Z');
    const yearEnd = new Date('2027-01-01T00:00:00Z');
    // Half the year left (182.5 of 365 days) of the largest price: 99 999 999 / 2 = 49 999 999.5 → 50 000 000.
    const at = new Date(yearStart.getTime() + 182.5 * 86_400_000);
    const { remainingCharge } = prorate({
      oldAmount: 0,
      newAmount: 99_999_999,
      periodStart: yearStart,
      periodEnd: yearEnd,
      at,
    });
    assert.equal(remainingCharge, 50_000_000);
  });

  it('takes the whole amounts at the period start and nothing at its end', () => {
    assert.deepEqual(
      prorate({ oldAmount: 1000, newAmount: 2500, periodStart, periodEnd, at: periodStart }),
      {
        unusedCredit: -1000,
        remainingCharge: 2500,
        difference: 1500,
      },
    );
    assert.deepEqual(
      prorate({ oldAmount: 1000, newAmount: 2500, periodStart, periodEnd, at: day(45) }),
      {
        unusedCredit: 0,
        remainingCharge: 0,
        difference: 0,
      },
    );
  });
});
