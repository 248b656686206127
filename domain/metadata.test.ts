import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { metadataInput, metadataLimits } from './metadata.ts';

const keys = (count: number) =>
  Object.fromEntries(Array.from({ length: count }, (_, index) => [`key${index}`, index]));

describe('metadataInput', () => {
  const accepted: [name: string, metadata: Record<string, unknown>][] = [
    ['no keys', {}],
    [
      'a string, an integer, a float and booleans',
      { plan: 'pro', seats: 3, ratio: 0.25, a: true, b: false },
    ],
    ['negative and zero numbers', { offset: -12, zero: 0 }],
    [`${metadataLimits.maxKeys} keys`, keys(50)],
    ['a 40-character key', { ['k'.repeat(40)]: 'v' }],
    ['a 500-character string', { note: 'x'.repeat(500) }],
    ['500 characters counted by code point, not UTF-16 unit', { note: '😀'.repeat(500) }],
    ['a 1-character key and value', { k: 'v' }],
  ];
  for (const [name, metadata] of accepted) {
    it(`accepts ${name}`, () => {
      assert.deepEqual(metadataInput.parse(metadata), metadata);
    });
  }

  const refused: [name: string, metadata: unknown, path: (string | number)[]][] = [
    ['51 keys', keys(51), []],
    ['a 41-character key', { ['k'.repeat(41)]: 'v' }, ['k'.repeat(41)]],
    ['an empty key', { '': 'v' }, ['']],
    ['a 501-character string', { note: 'x'.repeat(501) }, ['note']],
    ['an empty string', { note: '' }, ['note']],
    ['a nested object', { nested: { a: 1 } }, ['nested']],
    ['a list', { tags: ['a', 'b'] }, ['tags']],
    ['null', { gone: null }, ['gone']],
    ['a list instead of an object', [['a', 1]], []],
    ['a string instead of an object', 'plan=pro', []],
  ];
  for (const [name, metadata, path] of refused) {
    it(`refuses ${name}`, () => {
      const result = metadataInput.safeParse(metadata);
      assert.equal(result.success, false);
      assert.deepEqual(result.error?.issues[0]?.path, path);
    });
  }

  it('names the limit it enforces', () => {
    const result = metadataInput.safeParse({ note: 'x'.repeat(501) });
    assert.equal(result.error?.issues[0]?.message, 'String should have at most 500 characters');
  });
});
