import { z } from 'zod';

/** Polar's limits on seller metadata. */
export const metadataLimits = {
  maxKeys: 50,
  maxKeyLength: 40,
  maxStringLength: 500,
} as const;

/**
 * A string of `min` to `max` characters counted as Polar (Python) counts them: by code point, so
 * an emoji is one character, not the two UTF-16 units of `String#length`.
 */
const characters = (min: number, max: number) => {
  const length = (text: string) => [...text].length;
  return z
    .string()
    .refine((text) => length(text) >= min, `String should have at least ${min} character(s)`)
    .refine((text) => length(text) <= max, `String should have at most ${max} characters`);
};

const metadataValue = z.union([
  characters(1, metadataLimits.maxStringLength),
  z.number(),
  z.boolean(),
]);

/**
 * Metadata as sellers send it: at most 50 keys of 1 to 40 characters, each value a string of
 * 1 to 500 characters, a number (integer or not) or a boolean; no null, list or nested object.
 * Create schemas default it to `{}` (`metadataInput.default({})`); updates leave it optional.
 */
export const metadataInput = z
  .record(characters(1, metadataLimits.maxKeyLength), metadataValue)
  .refine((metadata) => Object.keys(metadata).length <= metadataLimits.maxKeys, {
    message: `Metadata may have at most ${metadataLimits.maxKeys} keys.`,
  });
