import { z } from 'zod';

/** A datetime as Polar sends it: ISO 8601 in UTC with its offset (`…Z`). */
export const isoDateTime = (date: Date) => date.toISOString();
export const isoDateTimeOrNull = (date: Date | null | undefined) =>
  date ? date.toISOString() : null;

/** An ISO datetime in a request (the SDK sends `Date#toISOString()`), as a Date. */
export const dateTimeInput = z.iso.datetime({ offset: true }).transform((value) => new Date(value));

/** A datetime in an answer, as `isoDateTime` writes it (UTC, `…Z`). */
export const dateTimeWireSchema = z.iso.datetime();

/** Seller metadata in an answer: string, number or boolean values. */
export const metadataWireSchema = z.record(
  z.string(),
  z.union([z.string(), z.number(), z.boolean()]),
);
