// The body parser's typing of `ctx.request.body`.
import type {} from '@koa/bodyparser';
import type { Middleware } from 'koa';
import { RequestValidationError } from '../../core/errors.ts';

type Loc = (string | number)[];

export const unstorableMessage =
  'Text must not contain NUL characters or unpaired UTF-16 surrogates.';

/** NUL, or half of a surrogate pair: PostgreSQL stores neither in text, and no input needs them. */
export const isUnstorableText = (text: string) => text.includes('\u0000') || !text.isWellFormed();

/** A value met while walking a request part: its key, and the entry of what holds it. */
interface Visit {
  value: unknown;
  key: string | number;
  holder: Visit | null;
}

const locOf = (visit: Visit): Loc => {
  const loc: Loc = [];
  for (let at: Visit | null = visit; at; at = at.holder) loc.push(at.key);
  return loc.reverse();
};

/**
 * Where in `value` (a parsed JSON or form body, a query) the first unstorable string or object
 * key is, as a loc starting with `part`; null when there is none. Walks with its own stack, and
 * builds a loc only for what it finds: a deeply nested body costs neither call stack nor copies.
 */
export function findUnstorableText(value: unknown, part: string): Loc | null {
  const pending: Visit[] = [{ value, key: part, holder: null }];
  for (let visit = pending.pop(); visit; visit = pending.pop()) {
    const current = visit.value;
    if (typeof current === 'string') {
      if (isUnstorableText(current)) return locOf(visit);
    } else if (Array.isArray(current)) {
      for (const [index, item] of current.entries()) {
        pending.push({ value: item, key: index, holder: visit });
      }
    } else if (current !== null && typeof current === 'object') {
      for (const [key, item] of Object.entries(current)) {
        const entry = { value: item, key, holder: visit };
        if (isUnstorableText(key)) return locOf(entry);
        pending.push(entry);
      }
    }
  }
  return null;
}

/** The path as routers decode their parameters; as sent when it is not valid percent-encoding. */
function decodedPath(path: string): string {
  if (!path.includes('%')) return path;
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/**
 * Whether a raw query string can hold unstorable text once parsed: only through a percent
 * escape, or as sent. Most hold neither, and are not parsed here for nothing.
 */
const mayEncodeUnstorableText = (raw: string) => raw.includes('%') || isUnstorableText(raw);

/**
 * Refuses, before any route sees it, a request whose path, query or parsed body holds text the
 * database cannot store: 422 in Polar's envelope under /v1, 400 VALIDATION_ERROR under
 * /api/auth (the error middleware picks). Runs after the body parser.
 */
export function rejectUnstorableText(): Middleware {
  return (ctx, next) => {
    const loc =
      (isUnstorableText(decodedPath(ctx.path)) ? ['path'] : null) ??
      (mayEncodeUnstorableText(ctx.querystring) ? findUnstorableText(ctx.query, 'query') : null) ??
      findUnstorableText(ctx.request.body, 'body');
    if (loc) {
      throw new RequestValidationError([
        { loc, msg: unstorableMessage, type: 'string_unstorable' },
      ]);
    }
    return next();
  };
}
