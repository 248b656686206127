import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type BillingInterval, nextBillingPeriod } from './billing-periods.ts';

const at = (iso: string) => new Date(iso);

/** The ends of `count` periods after the first one, which ends `firstEnd`. */
function endsAfter(anchor: string, interval: BillingInterval, firstEnd: string, count: number) {
  const ends: string[] = [];
  let end = at(firstEnd);
  for (let index = 0; index < count; index += 1) {
    end = nextBillingPeriod(at(anchor), interval, end).end;
    ends.push(end.toISOString());
  }
  return ends;
}

describe('billing periods', () => {
  it('keeps a month-end anchor: Jan 31 renews on Feb 28, then on Mar 31', () => {
    assert.deepEqual(
      endsAfter('2026-12-31T10:00:00.000Z', 'month', '2027-01-31T10:00:00.000Z', 3),
      ['2027-02-28T10:00:00.000Z', '2027-03-31T10:00:00.000Z', '2027-04-30T10:00:00.000Z'],
    );
  });

  it('ends February on the 29th in a leap year', () => {
    assert.deepEqual(
      endsAfter('2028-01-31T00:00:00.000Z', 'month', '2028-01-31T00:00:00.000Z', 2),
      ['2028-02-29T00:00:00.000Z', '2028-03-31T00:00:00.000Z'],
    );
  });

  it('starts the next period where the last one ended', () => {
    const next = nextBillingPeriod(
      at('2026-01-15T08:30:00.000Z'),
      'month',
      at('2026-02-15T08:30:00.000Z'),
    );
    assert.equal(next.start.toISOString(), '2026-02-15T08:30:00.000Z');
    assert.equal(next.end.toISOString(), '2026-03-15T08:30:00.000Z');
  });

  it('renews a yearly subscription from Feb 29 on Feb 28, and on Feb 29 in the next leap year', () => {
    assert.deepEqual(endsAfter('2028-02-29T00:00:00.000Z', 'year', '2028-02-29T00:00:00.000Z', 4), [
      '2029-02-28T00:00:00.000Z',
      '2030-02-28T00:00:00.000Z',
      '2031-02-28T00:00:00.000Z',
      '2032-02-29T00:00:00.000Z',
    ]);
  });

  it('counts weeks and days from the anchor', () => {
    assert.deepEqual(endsAfter('2026-03-01T00:00:00.000Z', 'week', '2026-03-08T00:00:00.000Z', 1), [
      '2026-03-15T00:00:00.000Z',
    ]);
    assert.deepEqual(endsAfter('2026-03-01T00:00:00.000Z', 'day', '2026-03-02T00:00:00.000Z', 1), [
      '2026-03-03T00:00:00.000Z',
    ]);
  });

  it('finds the first end after a trial that ended off the anchor', () => {
    // An anchor moved by a trial change: the next end is the first one after the period's end.
    const next = nextBillingPeriod(
      at('2026-01-10T00:00:00.000Z'),
      'month',
      at('2026-03-20T00:00:00.000Z'),
    );
    assert.equal(next.end.toISOString(), '2026-04-10T00:00:00.000Z');
  });
});
