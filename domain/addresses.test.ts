import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addressCountries, addressInput, embargoedCountries, normaliseState } from './addresses.ts';

describe('addressInput', () => {
  it('normalises the country to upper case and blank parts to null', () => {
    const address = addressInput.parse({
      line1: ' 1 Rue de Rivoli ',
      line2: '',
      postal_code: '75001',
      city: 'Paris',
      country: 'fr',
    });
    assert.deepEqual(address, {
      line1: '1 Rue de Rivoli',
      line2: null,
      postalCode: '75001',
      city: 'Paris',
      state: null,
      country: 'FR',
    });
  });

  const refused: [input: Record<string, unknown>, path: string[]][] = [
    [{ country: 'XX' }, ['country']],
    [{ country: 'RU' }, ['country']],
    [{ country: 'USA' }, ['country']],
    [{}, ['country']],
    [{ country: 'US', state: 'ZZ' }, ['state']],
    [{ country: 'CA', state: 'US-CA' }, ['state']],
  ];
  for (const [input, path] of refused) {
    it(`refuses ${JSON.stringify(input)} at ${path.join('.')}`, () => {
      const parsed = addressInput.safeParse(input);
      assert.equal(parsed.success, false);
      assert.deepEqual(parsed.error?.issues[0]?.path, path);
    });
  }

  it('excludes exactly the embargoed countries', () => {
    for (const country of embargoedCountries) assert.equal(addressCountries.has(country), false);
    assert.equal(addressCountries.size, 249 - embargoedCountries.length);
  });
});

describe('normaliseState', () => {
  const cases: [country: string, state: string | null, expected: string | null | undefined][] = [
    ['US', 'CA', 'US-CA'],
    ['US', 'ny', 'US-NY'],
    ['US', 'US-TX', 'US-TX'],
    ['US', 'DC', 'US-DC'],
    ['CA', 'QC', 'CA-QC'],
    ['CA', 'CA-on', 'CA-ON'],
    ['US', null, null],
    ['US', 'XX', undefined],
    ['CA', 'TX', undefined],
    ['DE', 'Bayern', 'Bayern'],
    ['GB', null, null],
  ];
  for (const [country, state, expected] of cases) {
    it(`${country} ${state} → ${expected}`, () => {
      assert.equal(normaliseState(country, state), expected);
    });
  }
});
