import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  aggregate,
  type MeterAggregation,
  type MeterEvent,
  type MeterFilter,
  type MeterFilterClause,
  matchesFilter,
} from './meter-filter.ts';

const event: MeterEvent = {
  name: 'api_call',
  source: 'user',
  // 1_700_000_000.9 seconds: the timestamp property floors it to 1_700_000_000.
  timestamp: new Date(1_700_000_000_900),
  metadata: { model: 'gpt-large', tokens: 120, ratio: 0.5, cached: false, name: 'meta-name' },
};

const only = (clause: MeterFilterClause): MeterFilter => ({
  conjunction: 'and',
  clauses: [clause],
});

describe('meter filter clauses', () => {
  const cases: [clause: MeterFilterClause, matches: boolean][] = [
    // Columns: name and source are strings, timestamp whole epoch seconds.
    [{ property: 'name', operator: 'eq', value: 'api_call' }, true],
    [{ property: 'name', operator: 'ne', value: 'api_call' }, false],
    [{ property: 'source', operator: 'eq', value: 'user' }, true],
    [{ property: 'timestamp', operator: 'eq', value: 1_700_000_000 }, true],
    [{ property: 'timestamp', operator: 'gt', value: 1_699_999_999 }, true],
    [{ property: 'timestamp', operator: 'lt', value: 1_700_000_000 }, false],
    // Every operator on a metadata string (code point order: 'gpt-large' > 'gpt-Large').
    [{ property: 'model', operator: 'eq', value: 'gpt-large' }, true],
    [{ property: 'model', operator: 'ne', value: 'gpt-small' }, true],
    [{ property: 'model', operator: 'gt', value: 'gpt-Large' }, true],
    [{ property: 'model', operator: 'gte', value: 'gpt-large' }, true],
    [{ property: 'model', operator: 'lt', value: 'gpt-large' }, false],
    [{ property: 'model', operator: 'lte', value: 'gpt-large' }, true],
    [{ property: 'model', operator: 'like', value: 't-la' }, true],
    [{ property: 'model', operator: 'like', value: 'T-LA' }, false],
    [{ property: 'model', operator: 'not_like', value: 'small' }, true],
    [{ property: 'model', operator: 'not_like', value: 'large' }, false],
    // like takes its value literally: % and _ are no wildcards.
    [{ property: 'model', operator: 'like', value: 'gpt%' }, false],
    [{ property: 'model', operator: 'like', value: 'gpt_large' }, false],
    // Every operator on a metadata number against an integer, fractions included.
    [{ property: 'tokens', operator: 'eq', value: 120 }, true],
    [{ property: 'tokens', operator: 'ne', value: 120 }, false],
    [{ property: 'tokens', operator: 'gt', value: 119 }, true],
    [{ property: 'tokens', operator: 'gte', value: 121 }, false],
    [{ property: 'tokens', operator: 'lt', value: 121 }, true],
    [{ property: 'tokens', operator: 'lte', value: 120 }, true],
    [{ property: 'ratio', operator: 'gt', value: 0 }, true],
    [{ property: 'ratio', operator: 'lt', value: 1 }, true],
    // Booleans compare with booleans, false before true.
    [{ property: 'cached', operator: 'eq', value: false }, true],
    [{ property: 'cached', operator: 'lt', value: true }, true],
    [{ property: 'cached', operator: 'gt', value: false }, false],
    // The metadata. prefix addresses metadata, even for a column's name.
    [{ property: 'metadata.tokens', operator: 'eq', value: 120 }, true],
    [{ property: 'metadata.name', operator: 'eq', value: 'meta-name' }, true],
    [{ property: 'name', operator: 'eq', value: 'meta-name' }, false],
  ];
  for (const [clause, matches] of cases) {
    it(`${clause.property} ${clause.operator} ${JSON.stringify(clause.value)} → ${matches}`, () => {
      assert.equal(matchesFilter(only(clause), event), matches);
    });
  }
});

describe('meter filter type mismatches and missing properties are false for every operator', () => {
  const mismatches: [property: string, value: string | number | boolean][] = [
    ['tokens', '120'], // number operand, string value
    ['model', 1], // string operand, integer value
    ['cached', 0], // boolean operand, integer value
    ['tokens', true], // number operand, boolean value
    ['name', 1], // string column, integer value
    ['timestamp', '1700000000'], // integer column, string value
    ['absent', 'x'], // no such metadata key
    ['constructor', 'x'], // not an own key of the metadata
  ];
  const operators = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'like', 'not_like'] as const;
  for (const [property, value] of mismatches) {
    it(`${property} against ${JSON.stringify(value)}`, () => {
      for (const operator of operators) {
        assert.equal(matchesFilter(only({ property, operator, value }), event), false, operator);
      }
    });
  }

  it('like and not_like need a string operand and a string value', () => {
    assert.equal(
      matchesFilter(only({ property: 'tokens', operator: 'like', value: '12' }), event),
      false,
    );
    assert.equal(
      matchesFilter(only({ property: 'model', operator: 'not_like', value: 7 }), event),
      false,
    );
  });
});

describe('meter filter conjunctions and nesting', () => {
  const yes: MeterFilterClause = { property: 'name', operator: 'eq', value: 'api_call' };
  const no: MeterFilterClause = { property: 'name', operator: 'eq', value: 'other' };
  const cases: [label: string, filter: MeterFilter, matches: boolean][] = [
    ['and of true clauses', { conjunction: 'and', clauses: [yes, yes] }, true],
    ['and with a false clause', { conjunction: 'and', clauses: [yes, no] }, false],
    ['or with one true clause', { conjunction: 'or', clauses: [no, yes] }, true],
    ['or of false clauses', { conjunction: 'or', clauses: [no, no] }, false],
    ['empty and', { conjunction: 'and', clauses: [] }, true],
    ['empty or', { conjunction: 'or', clauses: [] }, true],
    [
      'and of a clause and a nested or',
      { conjunction: 'and', clauses: [yes, { conjunction: 'or', clauses: [no, yes] }] },
      true,
    ],
    [
      'and of a clause and a failing nested or',
      { conjunction: 'and', clauses: [yes, { conjunction: 'or', clauses: [no, no] }] },
      false,
    ],
    [
      'or over two levels of nesting',
      {
        conjunction: 'or',
        clauses: [
          no,
          { conjunction: 'and', clauses: [yes, { conjunction: 'or', clauses: [no, yes] }] },
        ],
      },
      true,
    ],
    [
      'a missing property inside or does not spoil a true sibling',
      {
        conjunction: 'or',
        clauses: [{ property: 'absent', operator: 'ne', value: 'x' }, yes],
      },
      true,
    ],
  ];
  for (const [label, filter, matches] of cases) {
    it(label, () => assert.equal(matchesFilter(filter, event), matches));
  }
});

describe('meter aggregations', () => {
  const usage = (metadata: MeterEvent['metadata']): MeterEvent => ({ ...event, metadata });
  const events = [
    usage({ amount: 0.1, user: 'a' }),
    usage({ amount: 0.2, user: 'b' }),
    usage({ amount: 3, user: 'a' }),
    usage({ amount: 'ten', user: 1 }), // a string amount is not a number: left out
    usage({ user: '1' }), // no amount: left out; '1' and 1 are distinct users
  ];
  const cases: [aggregation: MeterAggregation, input: MeterEvent[], result: string][] = [
    [{ func: 'count' }, events, '5'],
    [{ func: 'sum', property: 'amount' }, events, '3.3'],
    [{ func: 'sum', property: 'metadata.amount' }, events, '3.3'],
    [{ func: 'max', property: 'amount' }, events, '3'],
    [{ func: 'min', property: 'amount' }, events, '0.1'],
    [{ func: 'avg', property: 'amount' }, events, '1.1'],
    [{ func: 'unique', property: 'user' }, events, '4'],
    [{ func: 'unique', property: 'amount' }, events, '4'],
    // Exact sums: 0.1 + 0.2 is 0.3, not 0.30000000000000004.
    [{ func: 'sum', property: 'amount' }, [events[0], events[1]] as MeterEvent[], '0.3'],
    // Negative, tiny and huge values keep every digit.
    [
      { func: 'sum', property: 'amount' },
      [usage({ amount: -0.5 }), usage({ amount: 1e-7 }), usage({ amount: 1e21 })],
      '999999999999999999999.5000001',
    ],
    [{ func: 'sum', property: 'amount' }, [usage({ amount: -1.25 })], '-1.25'],
    [{ func: 'max', property: 'amount' }, [usage({ amount: -2 }), usage({ amount: -1 })], '-1'],
    [{ func: 'min', property: 'amount' }, [usage({ amount: 2e-7 })], '0.0000002'],
    // Averages round half away from zero to 12 places.
    [
      { func: 'avg', property: 'amount' },
      [usage({ amount: 1 }), usage({ amount: 1 }), usage({ amount: 2 })],
      '1.333333333333',
    ],
    [
      { func: 'avg', property: 'amount' },
      [usage({ amount: 2 }), usage({ amount: 2 }), usage({ amount: 1 })],
      '1.666666666667',
    ],
    [
      { func: 'avg', property: 'amount' },
      [usage({ amount: -2 }), usage({ amount: -2 }), usage({ amount: -1 })],
      '-1.666666666667',
    ],
    [
      { func: 'avg', property: 'amount' },
      [usage({ amount: 0.000000000001 }), usage({ amount: 0 })],
      '0.000000000001',
    ],
    // Columns: timestamp is a number (epoch seconds), name a string.
    [{ func: 'max', property: 'timestamp' }, [event], '1700000000'],
    [{ func: 'sum', property: 'name' }, [event], '0'],
    [{ func: 'unique', property: 'name' }, events, '1'],
    // Nothing to aggregate answers 0.
    [{ func: 'count' }, [], '0'],
    [{ func: 'sum', property: 'amount' }, [], '0'],
    [{ func: 'max', property: 'amount' }, [], '0'],
    [{ func: 'min', property: 'amount' }, [usage({ amount: 'x' })], '0'],
    [{ func: 'avg', property: 'amount' }, [], '0'],
    [{ func: 'unique', property: 'amount' }, [], '0'],
  ];
  for (const [aggregation, input, result] of cases) {
    const property = 'property' in aggregation ? `(${aggregation.property})` : '';
    it(`${aggregation.func}${property} of ${input.length} events is ${result}`, () => {
      assert.equal(aggregate(aggregation, input), result);
    });
  }

  it('sums many fractions without drift', () => {
    const tenths = Array.from({ length: 1000 }, () => usage({ amount: 0.1 }));
    assert.equal(aggregate({ func: 'sum', property: 'amount' }, tenths), '100');
    assert.equal(aggregate({ func: 'avg', property: 'amount' }, tenths), '0.1');
  });
});
