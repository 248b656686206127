import { z } from 'zod';
import type { TestClock } from '../../db/entities/index.ts';
import { testClockStatuses } from '../../db/entities/test-clock.ts';
import { dateTimeInput, dateTimeWireSchema, isoDateTime, isoDateTimeOrNull } from '../wire.ts';

/** A new clock: named or not, frozen at the given instant or at the moment it is created. */
export const testClockCreateInput = z.object({
  name: z
    .string()
    .trim()
    .max(255)
    .nullish()
    .transform((value) => value || null),
  frozen_time: dateTimeInput.nullish(),
});
export type TestClockCreateInput = z.infer<typeof testClockCreateInput>;

/** Where the clock moves to: later than its frozen time, at most `maximumAdvanceYears` later. */
export const testClockAdvanceInput = z.object({ frozen_time: dateTimeInput });
export type TestClockAdvanceInput = z.infer<typeof testClockAdvanceInput>;

/** How far one advance may move a clock: a bounded number of renewals per call. */
export const maximumAdvanceYears = 2;

export const testClockSortFields = ['created_at', 'frozen_time', 'name'] as const;

/** A test clock (Tollgate's own resource; Polar has none). */
export const testClockWireSchema = z
  .object({
    id: z.uuid(),
    created_at: dateTimeWireSchema,
    modified_at: dateTimeWireSchema.nullable(),
    name: z.string().nullable(),
    frozen_time: dateTimeWireSchema,
    status: z.enum(testClockStatuses),
  })
  .meta({ id: 'TestClock' });
export type TestClockWire = z.input<typeof testClockWireSchema>;

/** A test clock as /v1 answers it (Tollgate's own resource; Polar has none). */
export function testClockWire(clock: TestClock): TestClockWire {
  return {
    id: clock.id,
    created_at: isoDateTime(clock.createdAt),
    modified_at: isoDateTimeOrNull(clock.modifiedAt),
    name: clock.name ?? null,
    frozen_time: isoDateTime(clock.frozenTime),
    status: clock.status,
  };
}
