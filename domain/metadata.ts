import { z } from 'zod';

/** Polar's limits on seller metadata. */
export const metadataLimits = {
  maxKeys: 50,
  maxKeyLength: 40,
  maxStringLength: 500,
} as const;

const metadataValue = z.union([
  z.string().min(1).max(metadataLimits.maxStringLength),
  z.number().int(),
  z.number(),
  z.boolean(),
]);

/**
 * Metadata as sellers send it: at most 50 keys of 1 to 40 characters, each value a string of
 * 1 to 500 characters, an integer, a number or a boolean. Absent means `{}`.
 */
export const metadataInput = z
  .record(z.string().min(1).max(metadataLimits.maxKeyLength), metadataValue)
  .refine((metadata) => Object.keys(metadata).length <= metadataLimits.maxKeys, {
    message: `Metadata may have at most ${metadataLimits.maxKeys} keys.`,
  });
