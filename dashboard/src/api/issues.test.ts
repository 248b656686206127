import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { fieldLabelOf, humanMessage } from './issues.ts';

/** What zod itself says of `value` against `schema`: the first issue's message. */
const zodSays = (schema: z.ZodType, value: unknown) =>
  schema.safeParse(value).error?.issues[0]?.message ?? '';

describe('validation messages', () => {
  it('names the field from its key', () => {
    assert.equal(fieldLabelOf('name'), 'Name');
    assert.equal(fieldLabelOf('prices.0.price_amount'), 'Price amount');
    assert.equal(fieldLabelOf('recurringInterval'), 'Recurring interval');
    assert.equal(fieldLabelOf('url'), 'URL');
  });

  it("rewrites zod's size, type, choice and format messages with the field's name", () => {
    const cases: [z.ZodType, unknown, string, string][] = [
      [z.string().min(3), 'ab', 'name', 'Name must be at least 3 characters'],
      [z.string().min(1), '', 'name', 'Name is required'],
      [z.string().max(2), 'abc', 'code', 'Code must be at most 2 characters'],
      [z.number().int().min(50), 10, 'prices.0.price_amount', 'Price amount must be at least 50'],
      [z.number().positive(), 0, 'amount', 'Amount must be more than 0'],
      [z.array(z.string()).min(1), [], 'events', 'Events must have at least 1 item'],
      [z.string(), undefined, 'name', 'Name is required'],
      [z.number(), 'x', 'amount', 'Amount must be a number'],
      [z.enum(['month', 'year']), 'day', 'interval', 'Interval must be one of: month, year'],
      [z.email(), 'nope', 'email', 'Email must be a valid email address'],
    ];
    for (const [schema, value, key, expected] of cases) {
      assert.equal(humanMessage(zodSays(schema, value), key), expected);
    }
  });

  it("keeps the API's own wording", () => {
    assert.equal(
      humanMessage("URL scheme should be 'https'", 'url'),
      "URL scheme should be 'https'",
    );
  });
});
