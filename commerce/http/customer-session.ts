import type { Context, Middleware } from 'koa';
import type { AppDependencies } from '../../api/dependencies.ts';
import { AppError } from '../../core/errors.ts';
import type { ChangeListener } from '../../db/change-notifications.ts';
import { Customer } from '../../db/entities/index.ts';
import { requestEntityManager } from '../../db/request-context.ts';
import { hashToken } from '../../domain/token-hashes.ts';
import {
  findLiveCustomerRow,
  findOpenSession,
  type OpenCustomerSession,
} from '../customer-sessions/service.ts';
import { commerceError } from '../errors.ts';
import { ReadCache } from './read-cache.ts';

const minute = 60_000;

/**
 * Admits customer-portal requests carrying `Authorization: Bearer polar_cst_…`: no credentials
 * answer 401 Unauthorized, a token that opens no live session 401 invalid_token (as Polar). The
 * customer is then `sessionCustomerOf(ctx)`; every portal read is scoped to it.
 *
 * A customer reads its portal far more often than anything in it changes, so this process keeps
 * what reads need: sessions (which never change once open), customers, and the answers of GET
 * requests per customer and address, each dropped when a change to that customer or its
 * organization's catalog is announced (the database announces every write to what a customer
 * sees, db/migrations/…_customer_change_triggers.ts). The customer's own writes through the
 * portal drop its answers here at once. Stripe's card list is the exception: a card changed in
 * Stripe outside the portal shows after a minute at most.
 */
export function customerSession(dependencies: AppDependencies): Middleware {
  const known = sessionCheckByApp.get(dependencies);
  if (known) return known;
  const check = sessionCheck(dependencies.changes);
  sessionCheckByApp.set(dependencies, check);
  return check;
}

// One per app, whichever portal router asks first: a write through one drops what all cached.
const sessionCheckByApp = new WeakMap<AppDependencies, Middleware>();

function sessionCheck(changes: ChangeListener | undefined): Middleware {
  const sessions = new ReadCache<OpenCustomerSession | null>(changes, [], {
    maxAgeMs: 5 * minute,
    maxKeysPerScope: 1,
    maxScopes: 10_000,
  });
  const customers = new ReadCache<Record<string, unknown> | null>(changes, 'customerState', {
    maxAgeMs: 5 * minute,
    maxKeysPerScope: 1000,
    maxScopes: 1000,
  });
  // At most 64 organizations × 64 customers × 16 answers are kept.
  const answers = new ReadCache<Buffer | null>(changes, ['customerState', 'catalog'], {
    maxAgeMs: minute,
    maxKeysPerScope: 64,
    maxScopes: 64,
    maxVariantsPerKey: 16,
  });

  return async (ctx, next) => {
    const authorization = ctx.get('authorization');
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
    ctx.set('WWW-Authenticate', 'Bearer realm="tollgate"');
    if (!bearer) throw commerceError('Unauthorized');
    const session = await sessions.read(
      hashToken(bearer),
      '',
      () => findOpenSession(requestEm(), bearer),
      { worthKeeping: (found) => found !== null },
    );
    const { organizationId, customerId } = session ?? { organizationId: '', customerId: '' };
    const row =
      session && session.expiresAt > Date.now()
        ? await customers.read(organizationId, customerId, () =>
            findLiveCustomerRow(requestEm(), organizationId, customerId),
          )
        : null;
    if (!row) {
      throw new AppError(
        'unauthenticated',
        'invalid_token',
        'The customer session is invalid or expired.',
        {
          error_description: 'The customer session is invalid or expired.',
        },
      );
    }
    ctx.remove('WWW-Authenticate');
    ctx.state.customerRow = row;

    if (ctx.method === 'GET') {
      const answer = await answers.read(
        organizationId,
        customerId,
        async () => {
          await next();
          return ctx.status === 200 && isJsonObject(ctx.body)
            ? Buffer.from(JSON.stringify(ctx.body))
            : null;
        },
        { variant: ctx.url, worthKeeping: (bytes) => bytes !== null },
      );
      if (answer) {
        ctx.type = 'json';
        ctx.body = answer;
      }
      return;
    }
    if (ctx.method === 'HEAD' || ctx.method === 'OPTIONS') return next();
    try {
      await next();
    } finally {
      // Whatever the write changed (and whether it succeeded), this customer's next read is fresh.
      customers.invalidate(organizationId, customerId);
      answers.invalidate(organizationId, customerId);
    }
  };
}

/**
 * The request's own entity manager (api/app.ts gives each request one, forked on first use:
 * asked for only when a cache misses).
 */
function requestEm() {
  const em = requestEntityManager();
  if (!em) throw new Error('customerSession() runs inside a request context');
  return em;
}

/** A body Koa would answer as JSON (not bytes, text or a stream). */
const isJsonObject = (body: unknown): body is object =>
  typeof body === 'object' &&
  body !== null &&
  !Buffer.isBuffer(body) &&
  typeof (body as { pipe?: unknown }).pipe !== 'function';

/**
 * The customer whose session a `customerSession()` middleware admitted, as an entity of the
 * request's entity manager: made when first asked for, so that answers served from the cache
 * never pay for it.
 */
export function sessionCustomerOf(ctx: Context): Customer {
  const state = ctx.state as { customer?: Customer; customerRow: Record<string, unknown> };
  // A copy: the entity may be changed by the request, the cached row must not.
  state.customer ??= requestEm().map(Customer, structuredClone(state.customerRow));
  return state.customer;
}

/** The id of the customer a session admitted, or null where no session was checked. */
export const sessionCustomerIdOf = (ctx: Context): string | null =>
  (ctx.state.customerRow as { id?: string } | undefined)?.id ?? null;
