import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type CustomFieldRule,
  type CustomFieldValue,
  checkCustomFieldData,
  checkCustomFieldValue,
} from './custom-field-values.ts';

const seconds = (iso: string) => Date.parse(iso) / 1000;

const fields = {
  text: { slug: 'nickname', type: 'text', properties: {} },
  boundedText: { slug: 'code', type: 'text', properties: { min_length: 2, max_length: 4 } },
  number: { slug: 'seats', type: 'number', properties: { ge: 1, le: 10 } },
  openNumber: { slug: 'score', type: 'number', properties: {} },
  date: {
    slug: 'birthday',
    type: 'date',
    properties: { ge: seconds('2000-01-01T00:00:00Z'), le: seconds('2000-12-31T12:00:00Z') },
  },
  checkbox: { slug: 'terms', type: 'checkbox', properties: {} },
  select: {
    slug: 'size',
    type: 'select',
    properties: {
      options: [
        { value: 's', label: 'Small' },
        { value: 'm', label: 'Medium' },
      ],
    },
  },
} satisfies Record<string, CustomFieldRule>;

type Expected = { value: CustomFieldValue } | { refused: string };

describe('a custom field value against its field', () => {
  const cases: [
    label: string,
    field: CustomFieldRule,
    required: boolean,
    submitted: unknown,
    expected: Expected,
  ][] = [
    ['any text', fields.text, false, 'Ada', { value: 'Ada' }],
    ['absent optional text is null', fields.text, false, undefined, { value: null }],
    ['empty optional text is null', fields.text, false, '', { value: null }],
    ['null optional text is null', fields.text, false, null, { value: null }],
    ['absent required text', fields.text, true, undefined, { refused: 'Field required' }],
    ['empty required text', fields.text, true, '', { refused: 'Field required' }],
    ['text given a number', fields.text, false, 42, { refused: 'Input should be a valid string' }],
    ['text at its minimum length', fields.boundedText, false, 'ab', { value: 'ab' }],
    ['text at its maximum length', fields.boundedText, false, 'abcd', { value: 'abcd' }],
    [
      'text too short',
      fields.boundedText,
      false,
      'a',
      { refused: 'String should have at least 2 characters' },
    ],
    [
      'text too long',
      fields.boundedText,
      false,
      'abcde',
      { refused: 'String should have at most 4 characters' },
    ],
    ['number within bounds', fields.number, true, 10, { value: 10 }],
    ['number as text', fields.number, true, '3', { value: 3 }],
    [
      'number below ge',
      fields.number,
      true,
      0,
      { refused: 'Input should be greater than or equal to 1' },
    ],
    [
      'number above le',
      fields.number,
      true,
      11,
      { refused: 'Input should be less than or equal to 10' },
    ],
    [
      'fractional number',
      fields.openNumber,
      false,
      1.5,
      { refused: 'Input should be a valid integer' },
    ],
    ['negative unbounded number', fields.openNumber, false, -7, { value: -7 }],
    [
      'number given a word',
      fields.openNumber,
      false,
      'many',
      { refused: 'Input should be a valid integer' },
    ],
    [
      'number given a boolean',
      fields.openNumber,
      false,
      true,
      { refused: 'Input should be a valid integer' },
    ],
    ['date on the ge day', fields.date, true, '2000-01-01', { value: '2000-01-01' }],
    [
      'date on the le day (its time ignored)',
      fields.date,
      true,
      '2000-12-31',
      { value: '2000-12-31' },
    ],
    [
      'datetime keeps the day written',
      fields.date,
      true,
      '2000-06-15T23:30:00-05:00',
      { value: '2000-06-15' },
    ],
    [
      'date before ge',
      fields.date,
      true,
      '1999-12-31',
      { refused: 'Input should be greater than or equal to 2000-01-01' },
    ],
    [
      'date after le',
      fields.date,
      true,
      '2001-01-01',
      { refused: 'Input should be less than or equal to 2000-12-31' },
    ],
    [
      'impossible date',
      fields.date,
      false,
      '2000-02-30',
      { refused: 'Input should be a valid date' },
    ],
    ['not a date', fields.date, false, 'yesterday', { refused: 'Input should be a valid date' }],
    [
      'date given a timestamp',
      fields.date,
      false,
      946684800,
      { refused: 'Input should be a valid date' },
    ],
    ['ticked checkbox', fields.checkbox, true, true, { value: true }],
    ['unticked optional checkbox', fields.checkbox, false, false, { value: false }],
    ['absent optional checkbox is false', fields.checkbox, false, undefined, { value: false }],
    [
      'unticked required checkbox',
      fields.checkbox,
      true,
      false,
      { refused: 'Input should be true' },
    ],
    ['absent required checkbox', fields.checkbox, true, undefined, { refused: 'Field required' }],
    [
      'checkbox given text',
      fields.checkbox,
      false,
      'yes',
      { refused: 'Input should be a valid boolean' },
    ],
    ['select option', fields.select, true, 'm', { value: 'm' }],
    [
      'select label is no value',
      fields.select,
      true,
      'Medium',
      { refused: "Input should be 's' or 'm'" },
    ],
    ['absent optional select', fields.select, false, undefined, { value: null }],
    ['absent required select', fields.select, true, null, { refused: 'Field required' }],
  ];
  for (const [label, field, required, submitted, expected] of cases) {
    it(`${label}${required ? ' (required)' : ''}`, () => {
      const check = checkCustomFieldValue(field, required, submitted);
      if ('value' in expected) assert.deepEqual(check, { ok: true, value: expected.value });
      else assert.deepEqual(check, { ok: false, message: expected.refused });
    });
  }
});

describe('custom field data against the attached fields', () => {
  const attached = [
    { field: fields.text, required: false },
    { field: fields.number, required: true },
    { field: fields.checkbox, required: true },
  ];

  it('keeps every attached slug, defaults the absent ones and drops unknown keys', () => {
    const checked = checkCustomFieldData(attached, { seats: 2, terms: true, other: 'x' });
    assert.deepEqual(checked, { data: { nickname: null, seats: 2, terms: true }, issues: [] });
  });

  it('reports each refused slug in the fields’ order', () => {
    const checked = checkCustomFieldData(attached, { nickname: 5, terms: false });
    assert.deepEqual(checked.issues, [
      { slug: 'nickname', message: 'Input should be a valid string' },
      { slug: 'seats', message: 'Field required' },
      { slug: 'terms', message: 'Input should be true' },
    ]);
  });

  it('reads only the submitted object’s own keys', () => {
    const checked = checkCustomFieldData(
      [{ field: { ...fields.text, slug: 'constructor' }, required: true }],
      {},
    );
    assert.deepEqual(checked.issues, [{ slug: 'constructor', message: 'Field required' }]);
  });
});
