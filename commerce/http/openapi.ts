import { STATUS_CODES } from 'node:http';
import { z } from 'zod';
import { pageQuery } from './listing.ts';
import { idParamSchema } from './request.ts';

/** One documented route. `path` is the Koa path as registered, e.g. '/v1/products/:id'. */
export interface Operation {
  method: 'get' | 'post' | 'patch' | 'put' | 'delete';
  path: string;
  /** Polar's SDK name where it exists: 'products:list', 'customer_portal:subscriptions:cancel'. */
  operationId: string;
  /** One line, for people. */
  summary: string;
  /** 'Products', 'Customer Portal', ... */
  tag: string;
  /** The access-token scopes that allow it (documented as its security requirement). */
  scopes?: readonly string[];
  /** Who may call it; 'organization' unless said. */
  auth?: 'organization' | 'customer' | 'public' | 'session';
  /** Path parameters: the schema the handler parses them with (`idPath` for `:id`). */
  params?: z.ZodType;
  /** The same zod constant the handler parses the query with, when it has one. */
  query?: z.ZodType;
  /** The same zod constant the handler parses the body with. */
  body?: z.ZodType;
  /** The success answer; `schema` is omitted for 204 and non-JSON answers. */
  response: { status: number; schema?: z.ZodType; contentType?: string };
  /** Documented error statuses besides 401/403/422/429, which follow from `auth` and inputs. */
  errors?: readonly number[];
}

/** The `:id` path parameter as `readIdParam` parses it (a uuid). */
export const idPath = idParamSchema('id');

const paginationWireSchema = z
  .object({ total_count: z.int(), max_page: z.int() })
  .meta({ id: 'Pagination' });

// Paged answers: their operations also take the `page` and `limit` query parameters.
const pages = new WeakSet<z.ZodType>();

/** Polar's list envelope around `item`: `{ items: item[], pagination: { total_count, max_page } }`. */
export const pageOf = (item: z.ZodType): z.ZodType => {
  const page = z.object({ items: z.array(item), pagination: paginationWireSchema });
  pages.add(page);
  return page;
};

/** Which API a document describes: each answers errors in its own envelope (api/middleware/errors.ts). */
export interface ApiDescription {
  title: string;
  version: string;
  description: string;
  /** '/v1' answers Polar's `{error, detail}` (422 on validation), '/api/auth' Better Auth's `{code, message}` (400). */
  envelope: 'commerce' | 'auth';
  operations: readonly Operation[];
}

type JsonSchema = Record<string, unknown>;

const validationIssueSchema = z
  .object({
    loc: z.array(z.union([z.string(), z.int()])),
    msg: z.string(),
    type: z.string(),
  })
  .meta({
    id: 'ValidationIssue',
    description: 'Where the bad value was (the request part, then the path inside it) and why.',
  });

/**
 * The error bodies of each envelope (api/middleware/errors.ts): the document's `Error` and
 * `ValidationError` components, and what the tests check error answers against.
 */
export const errorBodySchemas = {
  commerce: {
    // Loose: a refusal may add its own fields next to `detail`.
    Error: z.looseObject({ error: z.string(), detail: z.string() }).meta({
      id: 'Error',
      description: "Polar's error envelope: `error` names the error, `detail` says what happened.",
    }),
    ValidationError: z
      .object({
        error: z.enum(['RequestValidationError', 'PolarRequestValidationError']),
        detail: z.array(validationIssueSchema),
      })
      .meta({
        id: 'ValidationError',
        description: 'The request did not match its schema (or a business rule refused a field).',
      }),
  },
  auth: {
    Error: z
      .object({ code: z.string(), message: z.string(), details: z.unknown().optional() })
      .meta({
        id: 'Error',
        description: "Better Auth's error body: a stable `code` and a `message` for people.",
      }),
    ValidationError: z
      .object({
        code: z.literal('VALIDATION_ERROR'),
        message: z.string(),
        details: z.array(validationIssueSchema),
      })
      .meta({ id: 'ValidationError' }),
  },
} satisfies Record<ApiDescription['envelope'], Record<'Error' | 'ValidationError', z.ZodType>>;

const securitySchemes = {
  access_token: {
    type: 'http',
    scheme: 'bearer',
    description:
      'An organization access token (`polar_oat_…`). An operation lists the scopes that allow it; ' +
      'any one of them is enough.',
  },
  session_cookie: {
    type: 'apiKey',
    in: 'cookie',
    name: 'better-auth.session_token',
    description:
      'The dashboard session (`__Secure-better-auth.session_token` over HTTPS), acting for its ' +
      'active organization with the scopes of the member’s role.',
  },
  customer_session: {
    type: 'http',
    scheme: 'bearer',
    description: 'A customer session token (`polar_cst_…`) for the customer portal.',
  },
  session_token: {
    type: 'http',
    scheme: 'bearer',
    description: 'A session token from sign-in, as a bearer token instead of the session cookie.',
  },
};

/** Each kind of caller's security requirement (OpenAPI 3.1 allows scopes on any scheme). */
function securityOf(operation: Operation): Record<string, string[]>[] {
  switch (operation.auth ?? 'organization') {
    case 'organization':
      return [{ access_token: [...(operation.scopes ?? [])] }, { session_cookie: [] }];
    case 'customer':
      return [{ customer_session: [] }];
    case 'session':
      return [{ session_cookie: [] }, { session_token: [] }];
    case 'public':
      return [];
  }
}

/** Koa's `/v1/products/:id` as OpenAPI's `/v1/products/{id}`. */
export const openApiPath = (koaPath: string) =>
  koaPath.replace(/:(\w+)(\([^)]*\))?\??/g, (_match, name: string) => `{${name}}`);

const pathParamNames = (koaPath: string) =>
  [...koaPath.matchAll(/:(\w+)/g)].map((match) => match[1] as string);

/**
 * Converts zod schemas to JSON Schema and gathers the ones registered with an id
 * (`.meta({ id })`) as shared components. A schema whose request (input) shape differs from
 * its answer (output) shape, e.g. through defaults, becomes two components: `<id>Input` too.
 */
class SchemaCollector {
  readonly components = new Map<string, JsonSchema>();
  private readonly texts = new Map<string, string>();

  convert(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    const {
      $defs,
      $schema: _dialect,
      ...converted
    } = z.toJSONSchema(schema, {
      io,
      target: 'draft-2020-12',
      unrepresentable: 'any',
    }) as JsonSchema & { $defs?: Record<string, JsonSchema> };
    const names = new Map<string, string>();
    for (const [id, definition] of Object.entries($defs ?? {})) {
      names.set(id, this.componentName(id, definition, io));
    }
    const rewrite = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(rewrite);
      if (value === null || typeof value !== 'object') return value;
      return Object.fromEntries(
        Object.entries(value).map(([key, inner]) =>
          key === '$ref' && typeof inner === 'string' && inner.startsWith('#/$defs/')
            ? [key, `#/components/schemas/${names.get(inner.slice('#/$defs/'.length))}`]
            : [key, rewrite(inner)],
        ),
      );
    };
    for (const [id, definition] of Object.entries($defs ?? {})) {
      this.components.set(names.get(id) as string, rewrite(definition) as JsonSchema);
    }
    return rewrite(converted) as JsonSchema;
  }

  private componentName(id: string, definition: JsonSchema, io: 'input' | 'output'): string {
    const text = JSON.stringify(definition);
    for (const name of io === 'input' ? [id, `${id}Input`] : [id]) {
      const known = this.texts.get(name);
      if (known === undefined) {
        this.texts.set(name, text);
        return name;
      }
      if (known === text) return name;
    }
    throw new Error(`Two different schemas are registered as component ${id}`);
  }
}

type Parameter = {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  schema: JsonSchema;
  description?: string;
  /** How an object is spelled in the query: `deepObject` for `metadata[key]=value`. */
  style?: string;
  explode?: boolean;
};

/**
 * The properties of an object schema's JSON Schema as parameters of one place. A property's
 * `style` and `explode` (zod meta, as commerce/http/listing.ts's metadata filter) are the
 * parameter's, not its schema's.
 */
function parametersOf(json: JsonSchema, place: 'path' | 'query'): Parameter[] {
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(properties).map(([name, schema]) => {
    const { description, style, explode, ...rest } = schema;
    return {
      name,
      in: place,
      required: place === 'path' || required.has(name),
      schema: rest,
      ...(typeof description === 'string' && { description }),
      ...(typeof style === 'string' && { style }),
      ...(typeof explode === 'boolean' && { explode }),
    };
  });
}

/**
 * The error answers one operation documents, each status with its body: from its caller kind
 * and inputs, then its own. A validation status the operation also lists among its errors is
 * a business refusal too, answered in either body.
 */
export function errorAnswersOf(
  operation: Operation,
  envelope: ApiDescription['envelope'],
): Map<number, z.ZodType> {
  const bodies = errorBodySchemas[envelope];
  const auth = operation.auth ?? 'organization';
  const validationStatus = envelope === 'commerce' ? 422 : 400;
  const paged = operation.response.schema !== undefined && pages.has(operation.response.schema);
  const takesInput = Boolean(operation.params || operation.query || operation.body || paged);
  const statuses = new Set([
    ...(auth === 'public' ? [] : [401, 403]),
    ...(operation.errors ?? []),
    // Public and portal routes are rate limited per IP; so is all of /api/auth.
    ...(auth === 'public' || auth === 'customer' || envelope === 'auth' ? [429] : []),
  ]);
  const answers = new Map<number, z.ZodType>();
  if (takesInput) {
    answers.set(
      validationStatus,
      statuses.has(validationStatus)
        ? z.union([bodies.ValidationError, bodies.Error])
        : bodies.ValidationError,
    );
  }
  statuses.delete(validationStatus);
  for (const status of statuses) answers.set(status, bodies.Error);
  return answers;
}

/** One operation as OpenAPI's operation object. */
function operationObject(
  operation: Operation,
  envelope: ApiDescription['envelope'],
  schemas: SchemaCollector,
) {
  const pathParameters = operation.params
    ? parametersOf(schemas.convert(operation.params, 'input'), 'path')
    : [];
  // Path parameters without a schema are plain strings.
  for (const name of pathParamNames(operation.path)) {
    if (!pathParameters.some((parameter) => parameter.name === name)) {
      pathParameters.push({ name, in: 'path', required: true, schema: { type: 'string' } });
    }
  }
  const queryParameters = operation.query
    ? parametersOf(schemas.convert(operation.query, 'input'), 'query')
    : [];
  if (operation.response.schema && pages.has(operation.response.schema)) {
    for (const parameter of parametersOf(schemas.convert(pageQuery, 'input'), 'query')) {
      if (!queryParameters.some((known) => known.name === parameter.name)) {
        queryParameters.push(parameter);
      }
    }
  }
  const { status, schema, contentType } = operation.response;
  return {
    operationId: operation.operationId,
    summary: operation.summary,
    tags: [operation.tag],
    security: securityOf(operation),
    ...((pathParameters.length || queryParameters.length) && {
      parameters: [...pathParameters, ...queryParameters],
    }),
    ...(operation.body && {
      requestBody: {
        required: true,
        content: { 'application/json': { schema: schemas.convert(operation.body, 'input') } },
      },
    }),
    responses: Object.fromEntries([
      [
        String(status),
        {
          description: STATUS_CODES[status] ?? 'Success',
          ...(schema && {
            content: {
              [contentType ?? 'application/json']: { schema: schemas.convert(schema, 'output') },
            },
          }),
          ...(!schema && contentType && { content: { [contentType]: { schema: {} } } }),
        },
      ],
      ...[...errorAnswersOf(operation, envelope)].map(([status, body]) => [
        String(status),
        {
          description: STATUS_CODES[status] ?? 'Error',
          content: { 'application/json': { schema: schemas.convert(body, 'output') } },
        },
      ]),
    ]),
  };
}

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description: string };
  tags: { name: string }[];
  paths: Record<string, Record<string, ReturnType<typeof operationObject>>>;
  components: { schemas: Record<string, JsonSchema>; securitySchemes: typeof securitySchemes };
}

/**
 * The OpenAPI 3.1 document of an API, generated from its operations' zod schemas (requests as
 * their input shape, answers as their output shape). A path and method documented twice, or an
 * operationId used twice, is a mistake in the operations and throws.
 */
export function openApiDocument(api: ApiDescription): OpenApiDocument {
  const schemas = new SchemaCollector();
  const paths: OpenApiDocument['paths'] = {};
  const operationIds = new Set<string>();
  for (const operation of api.operations) {
    const path = openApiPath(operation.path);
    const item = paths[path] ?? {};
    paths[path] = item;
    if (item[operation.method]) throw new Error(`${operation.method} ${path} is documented twice`);
    if (operationIds.has(operation.operationId)) {
      throw new Error(`operationId ${operation.operationId} is used twice`);
    }
    operationIds.add(operation.operationId);
    item[operation.method] = operationObject(operation, api.envelope, schemas);
  }
  // The envelope's bodies are components even where no operation answers them.
  for (const body of Object.values(errorBodySchemas[api.envelope])) schemas.convert(body, 'output');
  const tags = [...new Set(api.operations.map((operation) => operation.tag))];
  return {
    openapi: '3.1.0',
    info: { title: api.title, version: api.version, description: api.description },
    tags: tags.map((name) => ({ name })),
    paths,
    components: {
      schemas: Object.fromEntries(schemas.components),
      securitySchemes,
    },
  };
}

const withoutTrailingSlash = (path: string) => (path.length > 1 ? path.replace(/\/$/, '') : path);

/**
 * The operation documenting `method` on a concrete path (`/v1/products/<uuid>`), Koa's `:name`
 * matching one segment and a trailing slash not counting. Where several match, the one with
 * the fewest parameters is the route meant (`/v1/events/names` over `/v1/events/:id`).
 */
export function operationAt(
  operations: readonly Operation[],
  method: string,
  path: string,
): Operation | undefined {
  const wanted = withoutTrailingSlash(path);
  const parameterCount = (operation: Operation) => pathParamNames(operation.path).length;
  return operations
    .filter(
      (operation) =>
        operation.method === method.toLowerCase() &&
        new RegExp(`^${withoutTrailingSlash(operation.path).replace(/:\w+/g, '[^/]+')}$`).test(
          wanted,
        ),
    )
    .sort((first, second) => parameterCount(first) - parameterCount(second))[0];
}

/** One JSON answer as it came over the wire. */
export interface Answer {
  method: string;
  path: string;
  status: number;
  body: unknown;
}

/**
 * What is wrong with an answer as its operation documents it, or null: an undocumented route
 * or status, a field that breaks its schema, or a field the schema does not name (zod drops
 * those silently, the document's `additionalProperties: false` refuses them).
 */
export function answerProblem(
  api: Pick<ApiDescription, 'operations' | 'envelope'>,
  answer: Answer,
): string | null {
  const operation = operationAt(api.operations, answer.method, answer.path);
  const where = `${answer.method} ${answer.path} answered ${answer.status}`;
  if (!operation) return `${where}: no operation documents this route`;
  const named = `${where} (${operation.operationId})`;
  const success = operation.response;
  const schema =
    answer.status === success.status
      ? success.schema
      : errorAnswersOf(operation, api.envelope).get(answer.status);
  if (answer.status !== success.status && !schema) {
    return `${named}: status not documented (${JSON.stringify(answer.body).slice(0, 300)})`;
  }
  if (!schema) return null;
  const parsed = schema.safeParse(answer.body);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 5).map((issue) => {
      const field = issue.path.map(String).join('.') || '(body)';
      return `${field}: ${issue.message}`;
    });
    return `${named}: ${issues.join('; ')}`;
  }
  const extra = undocumentedFields(answer.body, parsed.data, []);
  return extra.length ? `${named}: undocumented fields ${extra.slice(0, 5).join(', ')}` : null;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The paths of fields in `sent` that parsing dropped: the schema does not name them. */
function undocumentedFields(sent: unknown, parsed: unknown, path: string[]): string[] {
  if (Array.isArray(sent) && Array.isArray(parsed)) {
    return sent.flatMap((item, index) =>
      undocumentedFields(item, parsed[index], [...path, `${index}`]),
    );
  }
  if (!isRecord(sent) || !isRecord(parsed)) return [];
  return Object.entries(sent).flatMap(([key, value]) =>
    key in parsed
      ? undocumentedFields(value, parsed[key], [...path, key])
      : [[...path, key].join('.')],
  );
}
