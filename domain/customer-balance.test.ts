import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { balanceToApply } from './customer-balance.ts';

describe('balanceToApply', () => {
  const minimum = 50;
  const cases: [label: string, available: number, total: number, used: number][] = [
    ['no credit', 0, 2900, 0],
    ['a debt is not credit', -500, 2900, 0],
    ['part of the total', 1000, 2900, 1000],
    ['the whole total, the rest of the credit kept', 5000, 2900, 2900],
    ['exactly the total', 2900, 2900, 2900],
    ['less, so the charge meets the minimum', 980, 1000, 950],
    ['a remainder of exactly the minimum', 950, 1000, 950],
    ['a total under the minimum, covered whole', 100, 30, 30],
    ['a total under the minimum, not covered: nothing used', 20, 30, 0],
    ['nothing to pay', 1000, 0, 0],
  ];
  for (const [label, available, total, used] of cases) {
    it(label, () => assert.equal(balanceToApply(available, total, minimum), used));
  }
});
