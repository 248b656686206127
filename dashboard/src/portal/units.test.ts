import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { creditStanding, formatUnits } from './units.ts';

describe('portal usage wording', () => {
  it('groups units and keeps at most two decimals', () => {
    assert.equal(formatUnits(0), '0');
    assert.equal(formatUnits(1234567), '1,234,567');
    assert.equal(formatUnits(12.5), '12.5');
    assert.equal(formatUnits(0.12345), '0.12');
  });

  it('says what credits are left, or used beyond; nothing for a meter without credits', () => {
    assert.equal(creditStanding({ credited_units: 1000, balance: 250 }), '250 left');
    assert.equal(creditStanding({ credited_units: 1000, balance: 0 }), '0 left');
    assert.equal(
      creditStanding({ credited_units: 100, balance: -1500.5 }),
      '1,500.5 beyond your credits',
    );
    assert.equal(creditStanding({ credited_units: 0, balance: -42 }), null);
  });
});
