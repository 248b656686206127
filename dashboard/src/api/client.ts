/**
 * The one way the dashboard talks to the API: same-origin fetch with the session cookie, JSON
 * in and out, and every refusal turned into an `ApiError` whose `fieldErrors` name the form
 * fields to show them next to. It understands both error dialects the server speaks:
 * Polar's `/v1` (`{error, detail}`, with 422 `detail: [{loc, msg, type}]`) and Better Auth's
 * `/api/auth` (`{code, message}`).
 */

import { humanMessage } from './issues';

/** Messages by field key: the 422 `loc` without its leading `body`/`query`, joined with dots. */
export type FieldErrors = Record<string, string>;

export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type?: string;
}

export const fieldKeyOf = (loc: (string | number)[]) =>
  (loc[0] === 'body' || loc[0] === 'query' ? loc.slice(1) : loc).join('.');

/** Better Auth names no fields; these of its codes are about one. */
const authCodeFields: Record<string, string> = {
  INVALID_EMAIL: 'email',
  USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL: 'email',
  PASSWORD_TOO_SHORT: 'password',
  PASSWORD_TOO_LONG: 'password',
  SLUG_IS_TAKEN: 'slug',
  ORGANIZATION_ALREADY_EXISTS: 'slug',
};

/** A request the API refused or answered unusably. */
export class ApiError extends Error {
  readonly status: number;
  /** Polar's error name (`ResourceNotFound`) or Better Auth's code (`INVALID_EMAIL_OR_PASSWORD`). */
  readonly code: string;
  readonly fieldErrors: FieldErrors;

  constructor(message: string, status: number, code = '', fieldErrors: FieldErrors = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.fieldErrors = fieldErrors;
  }

  /** Reads either error dialect from a non-2xx answer's body. */
  static fromBody(status: number, body: unknown): ApiError {
    const fields = (body ?? {}) as {
      error?: unknown;
      detail?: unknown;
      code?: unknown;
      message?: unknown;
    };
    if (Array.isArray(fields.detail)) {
      const issues = fields.detail as ValidationIssue[];
      const fieldErrors: FieldErrors = {};
      for (const issue of issues) {
        const key = fieldKeyOf(issue.loc);
        fieldErrors[key] ??= humanMessage(issue.msg, key);
      }
      const first = issues[0];
      const message = first
        ? humanMessage(first.msg, fieldKeyOf(first.loc))
        : 'The request is not valid.';
      return new ApiError(
        message,
        status,
        String(fields.error ?? 'RequestValidationError'),
        fieldErrors,
      );
    }
    if (typeof fields.detail === 'string') {
      return new ApiError(fields.detail, status, String(fields.error ?? ''));
    }
    if (typeof fields.message === 'string') {
      const code = String(fields.code ?? '');
      const field = authCodeFields[code];
      return new ApiError(fields.message, status, code, field ? { [field]: fields.message } : {});
    }
    return new ApiError(`The request failed (HTTP ${status}).`, status);
  }
}

export interface RequestOptions {
  body?: unknown;
  /** Query parameters; arrays repeat the name (`sorting=a&sorting=b`), empty values are left out. */
  query?: Record<string, string | number | boolean | readonly string[] | null | undefined>;
  /** Non-2xx statuses whose JSON body is still a normal answer for this endpoint. */
  acceptStatuses?: readonly number[];
  signal?: AbortSignal;
}

export function withQuery(path: string, query: RequestOptions['query'] = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    for (const one of Array.isArray(value) ? value : [value]) params.append(name, String(one));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/** Calls a same-origin API path and returns its JSON body, typed by the caller. */
export async function request<T>(
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
  path: string,
  { body, query, acceptStatuses = [], signal }: RequestOptions = {},
): Promise<T> {
  const response = await fetch(withQuery(path, query), {
    method,
    credentials: 'same-origin',
    headers: {
      Accept: 'application/json',
      ...(body !== undefined && { 'Content-Type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal,
  });
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // A proxy or gateway can answer with an HTML error page.
    throw new ApiError(
      `${method} ${path} answered HTTP ${response.status} without a JSON body`,
      response.status,
    );
  }
  if (!response.ok && !acceptStatuses.includes(response.status)) {
    throw ApiError.fromBody(response.status, parsed);
  }
  return parsed as T;
}

/**
 * Downloads a file the API answers (a CSV export) as `filename`: fetched with the session
 * cookie, so a refusal shows as an `ApiError`, then saved from a blob URL.
 */
export async function downloadFile(path: string, filename: string): Promise<void> {
  const response = await fetch(path, { credentials: 'same-origin' });
  if (!response.ok) {
    throw ApiError.fromBody(response.status, await response.json().catch(() => null));
  }
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.click();
  // The browser reads the blob after the click returns; the URL is freed once it surely has.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

export const api = {
  get: <T>(path: string, options?: Omit<RequestOptions, 'body'>) =>
    request<T>('GET', path, options),
  post: <T>(path: string, body?: unknown, options?: RequestOptions) =>
    request<T>('POST', path, { ...options, body: body ?? {} }),
  patch: <T>(path: string, body: unknown, options?: RequestOptions) =>
    request<T>('PATCH', path, { ...options, body }),
  delete: <T>(path: string, options?: RequestOptions) => request<T>('DELETE', path, options),
};

/** Polar's list answer. */
export interface ListResource<T> {
  items: T[];
  pagination: { total_count: number; max_page: number };
}
