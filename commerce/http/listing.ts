import type { Context, Middleware } from 'koa';
import { z } from 'zod';
import { parseQuery } from '../../api/validation.ts';
import { invalidField, RequestValidationError } from '../../core/errors.ts';
import type { Page, SortCriterion } from '../../db/listing.ts';
import type { CommerceCaller } from '../caller.ts';
import { callerOf } from './caller.ts';

/** Polar's list envelope. */
export interface ListResource<T> {
  items: T[];
  pagination: { total_count: number; max_page: number };
}

/** `page` and `limit` of every list (documented on each list operation, commerce/http/openapi.ts). */
export const pageQuery = z
  .object({
    page: z.coerce.number().int().min(1).default(1),
    // Polar clamps a larger limit silently instead of refusing it.
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .default(10)
      .transform((limit) => Math.min(limit, 100)),
  })
  .loose();

/** `page` (from 1) and `limit` (1..100, default 10) of a list request. */
export function readPage(ctx: Context): Page {
  const { page, limit } = parseQuery(ctx, pageQuery);
  return { page, limit, offset: (page - 1) * limit };
}

export function listResource<T>(items: T[], totalCount: number, page: Page): ListResource<T> {
  return {
    items,
    pagination: { total_count: totalCount, max_page: Math.ceil(totalCount / page.limit) },
  };
}

export interface ListRoute<Lister, Query extends { page: Page }, Row, Wire> {
  /** Who lists, asked first: the /v1 caller unless said (the portal's session customer). */
  lister?: (ctx: Context) => Lister;
  /** The list's query parameters (page, sorting, filters): the only query the list reads. */
  query: ListParameters<Query>;
  /** The page's rows and how many match in all. */
  list: (lister: Lister, query: Query) => Promise<[Row[], number]>;
  /** The rows' wire shapes. */
  serialize: (rows: Row[], lister: Lister) => Wire[] | Promise<Wire[]>;
  /**
   * Whether `?organization_id=` may name only the caller's organization (an empty list when it
   * names others), as in /v1 lists, whose caller acts for one organization. By default, when the
   * lister is the /v1 caller.
   */
  ownOrganizationOnly?: boolean;
  /** Answers the list (its JSON bytes) from a cache, building it with `answer` when missing. */
  cached?: (
    ctx: Context,
    lister: Lister,
    answer: () => Promise<ListResource<Wire>>,
  ) => Promise<Buffer>;
}

// The query each list route reads, by its handler (the OpenAPI test compares it with the docs).
const listQueries = new WeakMap<Middleware, ListParameters<unknown>>();

/**
 * The handler of a list route: reads the query, lists, and answers Polar's `{items, pagination}`
 * envelope. Bad input answers 422 whatever the organization filter: the query is read first. A
 * list whose `organization_id` filter names only other organizations than the caller's is
 * empty, read from nothing.
 */
export function listRoute<Query extends { page: Page }, Row, Wire, Lister = CommerceCaller>(
  route: ListRoute<Lister, Query, Row, Wire>,
): Middleware {
  const { list, serialize, cached } = route;
  const listerOf = route.lister ?? (callerOf as unknown as (ctx: Context) => Lister);
  const ownOrganizationOnly = route.ownOrganizationOnly ?? !route.lister;
  if (ownOrganizationOnly && !('organization_id' in route.query.schema.shape)) {
    throw new Error('A list of the caller’s organization reads (so documents) organization_id');
  }
  const handler: Middleware = async (ctx) => {
    const lister = listerOf(ctx);
    const query = route.query.read(ctx);
    const answer = async () => {
      if (ownOrganizationOnly && !organizationFilterMatches(ctx, callerOf(ctx))) {
        return listResource<Wire>([], 0, query.page);
      }
      const [rows, total] = await list(lister, query);
      return listResource(await serialize(rows, lister), total, query.page);
    };
    if (cached) {
      ctx.type = 'json';
      ctx.body = await cached(ctx, lister, answer);
    } else {
      ctx.body = await answer();
    }
  };
  listQueries.set(handler, route.query as ListParameters<unknown>);
  return handler;
}

/** Every value of a query parameter that may repeat (`?product_id=a&product_id=b`). */
export function queryValues(ctx: Context, name: string): string[] {
  const value = ctx.query[name];
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

// Schemas are built once: zod makes building one far dearer than using it, per request.
const listSchemas = new WeakMap<z.ZodType, z.ZodArray<z.ZodType>>();

/** The array of `schema`: how a repeatable parameter is read and documented. */
function listSchemaOf(schema: z.ZodType): z.ZodArray<z.ZodType> {
  let listSchema = listSchemas.get(schema);
  if (!listSchema) {
    listSchema = z.array(schema);
    listSchemas.set(schema, listSchema);
  }
  return listSchema;
}

/** A repeatable query parameter parsed with `schema`, located in errors as `query.<name>`. */
export function readQueryList<Schema extends z.ZodType>(
  ctx: Context,
  name: string,
  schema: Schema,
): z.infer<Schema>[] {
  const parsed = listSchemaOf(schema).safeParse(queryValues(ctx, name));
  if (!parsed.success) {
    throw RequestValidationError.fromZod(
      'query',
      parsed.error.issues.map((issue) => ({ ...issue, path: [name, ...issue.path] })),
    );
  }
  return parsed.data as z.infer<Schema>[];
}

/** An optional `true`/`false` query parameter. */
const queryBoolean = z.enum(['true', 'false']);
export function readQueryBoolean(ctx: Context, name: string): boolean | undefined {
  const [value] = readQueryList(ctx, name, queryBoolean);
  return value === undefined ? undefined : value === 'true';
}

/** A uuid query filter (`?product_id=…`, repeatable). */
const queryId = z.uuid();
export const readQueryIds = (ctx: Context, name: string) => readQueryList(ctx, name, queryId);

/**
 * `?metadata[key]=value` filters (deepObject style): each key must match one of its values.
 * Values compare as text with the stored JSON value (`true`, `42`, `gold`).
 */
export function readMetadataFilter(ctx: Context): Record<string, string[]> {
  const filter: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(ctx.query)) {
    const key = /^metadata\[(.+)\]$/.exec(name)?.[1];
    if (key === undefined || value === undefined) continue;
    filter[key] = Array.isArray(value) ? value : [value];
  }
  return filter;
}

/**
 * The `organization_id` list filter: callers act for one organization, so it may only name
 * theirs. Answers false when it names only others (the list is then empty).
 */
export function organizationFilterMatches(ctx: Context, caller: CommerceCaller): boolean {
  const wanted = readQueryIds(ctx, 'organization_id');
  return wanted.length === 0 || wanted.includes(caller.organizationId);
}

/**
 * `?sorting=-created_at&sorting=name`: each value one of `fields`, `-` for descending. An unknown
 * criterion answers 422 "Invalid sorting criterion." at `query.sorting`, as Polar; none gives
 * `fallback`.
 */
export function readSorting<Field extends string>(
  ctx: Context,
  fields: readonly Field[],
  fallback: string,
): SortCriterion<Field>[] {
  const values = queryValues(ctx, 'sorting');
  return (values.length ? values : [fallback]).map((value) => {
    const descending = value.startsWith('-');
    const field = (descending ? value.slice(1) : value) as Field;
    if (!fields.includes(field)) {
      throw invalidField(['query', 'sorting'], 'Invalid sorting criterion.', 'enum');
    }
    return { field, descending };
  });
}

/**
 * One of a list's query parameters: the schema documenting it under its name (two for the page),
 * and how the route reads it.
 */
export interface QueryParameter<Value> {
  documented: Record<string, z.ZodType>;
  read: (ctx: Context) => Value;
}

/** `page` and `limit`. */
export const pageParameters: QueryParameter<Page> = { documented: pageQuery.shape, read: readPage };

/** A repeatable parameter of `schema` (`?status=open&status=paid`). */
export const valuesParameter = <Schema extends z.ZodType>(
  name: string,
  schema: Schema,
): QueryParameter<z.infer<Schema>[]> => ({
  documented: { [name]: listSchemaOf(schema).optional() },
  read: (ctx) => readQueryList(ctx, name, schema),
});

/** A repeatable uuid filter (`?product_id=…&product_id=…`). */
export const idsParameter = (name: string) => valuesParameter(name, queryId);

/** A repeatable text filter, taken as given. */
export const textsParameter = (name: string): QueryParameter<string[]> => ({
  documented: { [name]: z.array(z.string()).optional() },
  read: (ctx) => queryValues(ctx, name),
});

/** An optional `true`/`false` filter. */
export const booleanParameter = (name: string): QueryParameter<boolean | undefined> => ({
  documented: { [name]: z.boolean().optional() },
  read: (ctx) => readQueryBoolean(ctx, name),
});

/** `sorting`: the `fields`, each also with `-` for descending, `fallback` when none. */
export const sortingParameter = <Field extends string>(
  fields: readonly Field[],
  fallback: `${'' | '-'}${NoInfer<Field>}`,
): QueryParameter<SortCriterion<Field>[]> => ({
  documented: {
    sorting: z
      .array(z.enum(fields.flatMap((field) => [field, `-${field}`]) as [string, ...string[]]))
      .default([fallback]),
  },
  read: (ctx) => readSorting(ctx, fields, fallback),
});

/** `metadata[key]=value` filters, an object in OpenAPI's deepObject style. */
export const metadataParameter: QueryParameter<Record<string, string[]>> = {
  documented: {
    metadata: z
      .record(z.string(), z.union([z.string(), z.array(z.string())]))
      .optional()
      .meta({ style: 'deepObject', explode: true }),
  },
  read: readMetadataFilter,
};

/** One field of an object `schema` parsed from the whole query (all its refusals at once). */
export const fieldParameter = <
  Schema extends z.ZodObject,
  Key extends keyof z.infer<Schema> & string,
>(
  schema: Schema,
  key: Key,
): QueryParameter<z.infer<Schema>[Key]> => ({
  documented: { [key]: schema.shape[key] as z.ZodType },
  read: (ctx) => parseQuery(ctx, schema)[key],
});

/** `parameter`'s value passed through `map` (a first value, a parsed filter). */
export const mapParameter = <Value, Mapped>(
  parameter: QueryParameter<Value>,
  map: (value: Value) => Mapped,
): QueryParameter<Mapped> => ({
  documented: parameter.documented,
  read: (ctx) => map(parameter.read(ctx)),
});

/** A list's query: read in one go, and documented by the list's operation as `schema`. */
export interface ListParameters<Query> {
  /** Reads each parameter in the order written: the first bad one answers 422. */
  read: (ctx: Context) => Query;
  /** Every parameter read, as the object schema the operation documents (its `query`). */
  schema: z.ZodObject;
}

/** The query of a list from its parameters, each under the key the list's query takes it. */
export function listParameters<Read extends Record<string, QueryParameter<unknown>>>(
  parameters: Read,
): ListParameters<{ [Key in keyof Read]: ReturnType<Read[Key]['read']> }> {
  const entries = Object.entries(parameters);
  const shape: Record<string, z.ZodType> = {};
  for (const [, { documented }] of entries) {
    for (const [name, schema] of Object.entries(documented)) {
      if (name in shape) throw new Error(`The query parameter ${name} is listed twice`);
      shape[name] = schema;
    }
  }
  return {
    read: (ctx) =>
      Object.fromEntries(entries.map(([key, parameter]) => [key, parameter.read(ctx)])) as {
        [Key in keyof Read]: ReturnType<Read[Key]['read']>;
      },
    schema: z.object(shape),
  };
}

/** The handler of a list answering more than a page: `handle` answers the query read with `parameters`. */
export function readsList<Query>(
  parameters: ListParameters<Query>,
  handle: (ctx: Context, query: Query) => Promise<void>,
): Middleware {
  const handler: Middleware = (ctx) => handle(ctx, parameters.read(ctx));
  listQueries.set(handler, parameters as ListParameters<unknown>);
  return handler;
}

/** The query a list route's handler reads (commerce/http/openapi.test.ts). */
export const listParametersOf = (middleware: unknown): ListParameters<unknown> | undefined =>
  typeof middleware === 'function' ? listQueries.get(middleware as Middleware) : undefined;
