import { p } from '@mikro-orm/core';
import { newId } from '../../domain/ids.ts';

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
