import type { Context } from 'koa';
import { z } from 'zod';
import { parseBody, parseParams } from '../../api/validation.ts';
import { invalidField } from '../../core/errors.ts';
import type { CommerceCaller } from '../caller.ts';

// One schema per parameter name, built once (building a zod schema costs more than using it).
const idParamSchemas = new Map<string, z.ZodType<Record<string, string>>>();

/** The schema of a uuid path parameter `name` (also what the API reference documents). */
export function idParamSchema(name: string): z.ZodType<Record<string, string>> {
  let schema = idParamSchemas.get(name);
  if (!schema) {
    schema = z.object({ [name]: z.uuid() }) as z.ZodType<Record<string, string>>;
    idParamSchemas.set(name, schema);
  }
  return schema;
}

/** The `{id}` path parameter: a malformed uuid answers 422 at `path.id`, as in Polar. */
export function readIdParam(ctx: Context, name = 'id'): string {
  const params = parseParams(ctx.params as Record<string, string>, idParamSchema(name));
  return params[name] as string;
}

/**
 * Create bodies name no organization under a token or session: the caller's is implied. Polar
 * refuses the field with an organization token; a session may only name its own (active) one.
 */
export function refuseForeignOrganization(
  body: { organization_id?: string | null },
  caller: CommerceCaller,
) {
  const named = body.organization_id;
  if (named == null) return;
  if (caller.kind === 'organization_token') {
    throw invalidField(
      ['body', 'organization_id'],
      'Setting organization_id is disallowed when using an organization token.',
    );
  }
  if (named !== caller.organizationId) {
    throw invalidField(['body', 'organization_id'], 'Organization not found.');
  }
}

/** A create request's body, parsed with `schema`; it may name no organization but the caller's. */
export function parseCreateBody<Schema extends z.ZodType<{ organization_id?: string | null }>>(
  ctx: Context,
  schema: Schema,
  caller: CommerceCaller,
): z.infer<Schema> {
  const input = parseBody(ctx, schema);
  refuseForeignOrganization(input, caller);
  return input;
}
