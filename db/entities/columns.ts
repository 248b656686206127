import { p } from '@mikro-orm/core';
import { newId } from '../ids.ts';

/** Columns every table shares: a time-ordered UUID key and the two timestamps. */
export const idColumn = () =>
  p
    .uuid()
    .primary()
    .onCreate(() => newId());

export const timestampColumns = () => ({
  createdAt: p.datetime().onCreate(() => new Date()),
  updatedAt: p
    .datetime()
    .onCreate(() => new Date())
    .onUpdate(() => new Date()),
});

/**
 * Timestamps of a commerce row as Polar answers them: `modified_at` stays null until the first
 * change after creation.
 */
export const commerceTimestampColumns = () => ({
  createdAt: p.datetime().onCreate(() => new Date()),
  modifiedAt: p
    .datetime()
    .nullable()
    .onUpdate(() => new Date()),
});

/** Seller-set key/value pairs (string, integer, number or boolean values), never null. */
export type Metadata = Record<string, string | number | boolean>;

export const metadataColumn = () => p.json<Metadata>().onCreate(() => ({}));
