import { defineEntity, p } from '@mikro-orm/core';
import { commerceTimestampColumns, idColumn } from './columns.ts';
import { Organization } from './organization.ts';

export const testClockStatuses = ['ready', 'advancing'] as const;
export type TestClockStatus = (typeof testClockStatuses)[number];

/**
 * A sandbox clock, in the spirit of Stripe's test clocks: the subscriptions of the customers
 * attached to it follow its frozen time instead of real time, and advancing it wakes their
 * workflows (a year of renewals in seconds). Production subscriptions never have one.
 */
const TestClockSchema = defineEntity({
  name: 'TestClock',
  tableName: 'test_clocks',
  indexes: [{ properties: ['organization', 'createdAt'] }],
  properties: {
    id: idColumn(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    name: p.string().nullable(),
    frozenTime: p.datetime(),
    /** `advancing` while the attached subscriptions' workflows are being woken. */
    status: p.enum(testClockStatuses).default('ready'),
    ...commerceTimestampColumns(),
  },
});

export class TestClock extends TestClockSchema.class {}
TestClockSchema.setClass(TestClock);
