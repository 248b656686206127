// The body parser's typing of `ctx.request.body`, also for programs that import only this file.
import type {} from '@koa/bodyparser';
import type { Context } from 'koa';
import type { z } from 'zod';
import { RequestValidationError } from '../core/errors.ts';

/** Parses one part of a request with a zod schema; a mismatch answers 422 with every issue. */
function parsePart<Schema extends z.ZodType>(
  part: 'body' | 'query' | 'params',
  schema: Schema,
  value: unknown,
): z.infer<Schema> {
  const result = schema.safeParse(value);
  if (!result.success) throw RequestValidationError.fromZod(part, result.error.issues);
  return result.data;
}

export const parseBody = <Schema extends z.ZodType>(ctx: Context, schema: Schema) =>
  parsePart('body', schema, ctx.request.body ?? {});

export const parseQuery = <Schema extends z.ZodType>(ctx: Context, schema: Schema) =>
  parsePart('query', schema, ctx.query);

export const parseParams = <Schema extends z.ZodType>(
  params: Record<string, string>,
  schema: Schema,
) => parsePart('params', schema, params);
