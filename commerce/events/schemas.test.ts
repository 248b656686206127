import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventCreateInput, parseEventCreateInput } from './schemas.ts';

const customerId = '01a2052d-4a4a-7582-9ce0-7d2f0f3a1b2c';

/** Events at and around every bound the fast path checks itself. */
const events: unknown[] = [
  { name: 'api_call', external_customer_id: 'c-1' },
  { name: 'api_call', customer_id: customerId, timestamp: '2024-02-29T10:00:00.123456+02:00' },
  { name: 'a', external_customer_id: 'c-1', metadata: { tokens: 1.5, on: false, model: 'é😀' } },
  { name: 'a', customer_id: customerId, external_customer_id: 'c-1', external_id: null },
  { name: 'a', external_customer_id: 'c-1', organization_id: null, external_id: 'x'.repeat(255) },
  { name: 'x'.repeat(255), external_customer_id: 'c-1' },
  { name: 'x'.repeat(256), external_customer_id: 'c-1' },
  { name: '', external_customer_id: 'c-1' },
  { name: 'a' },
  { name: 1, external_customer_id: 'c-1' },
  { name: 'a', external_customer_id: '' },
  { name: 'a', customer_id: 'not-a-uuid' },
  { name: 'a', external_customer_id: 'c-1', external_id: '' },
  { name: 'a', external_customer_id: 'c-1', timestamp: '2025-02-29T00:00:00Z' },
  { name: 'a', external_customer_id: 'c-1', timestamp: '2025-01-01T00:00:00' },
  { name: 'a', external_customer_id: 'c-1', timestamp: 1735689600 },
  { name: 'a', external_customer_id: 'c-1', metadata: { tokens: 1e18 } },
  { name: 'a', external_customer_id: 'c-1', metadata: { tokens: -999_999_999_999_999_900 } },
  { name: 'a', external_customer_id: 'c-1', metadata: { tokens: null } },
  { name: 'a', external_customer_id: 'c-1', metadata: { tokens: [1] } },
  { name: 'a', external_customer_id: 'c-1', metadata: { '': 1 } },
  { name: 'a', external_customer_id: 'c-1', metadata: { ['😀'.repeat(40)]: 1 } },
  { name: 'a', external_customer_id: 'c-1', metadata: { ['😀'.repeat(21)]: 1 } },
  { name: 'a', external_customer_id: 'c-1', metadata: { text: '😀'.repeat(300) } },
  { name: 'a', external_customer_id: 'c-1', metadata: { text: '' } },
  {
    name: 'a',
    external_customer_id: 'c-1',
    metadata: Object.fromEntries(Array.from({ length: 51 }, (_, index) => [`k${index}`, index])),
  },
  { name: 'a', external_customer_id: 'c-1', metadata: [] },
  { name: 'a', external_customer_id: 'c-1', organization_id: customerId },
  { name: 'a', external_customer_id: 'c-1', unknown_field: true },
  JSON.parse('{"name": "a", "external_customer_id": "c-1", "metadata": {"__proto__": 1}}'),
  null,
  [],
  'api_call',
];

describe('parseEventCreateInput', () => {
  it('answers what the event schema answers, for valid and invalid events alike', () => {
    for (const event of events) {
      const fast = parseEventCreateInput(event);
      const schema = eventCreateInput.safeParse(event);
      assert.equal(fast.success, schema.success, JSON.stringify(event));
      if (fast.success && schema.success) assert.deepEqual(fast.data, schema.data);
      if (!fast.success && !schema.success)
        assert.deepEqual(fast.error.issues, schema.error.issues);
    }
  });
});
