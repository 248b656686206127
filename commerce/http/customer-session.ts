import { RequestContext } from '@mikro-orm/core';
import type { Context, Middleware } from 'koa';
import { AppError } from '../../core/errors.ts';
import type { Customer } from '../../db/entities/index.ts';
import { findSessionCustomer } from '../customer-sessions/service.ts';
import { commerceError } from '../errors.ts';

/**
 * Admits customer-portal requests carrying `Authorization: Bearer polar_cst_…`: no credentials
 * answer 401 Unauthorized, a token that opens no live session 401 invalid_token (as Polar). The
 * customer is then `sessionCustomerOf(ctx)`; every portal read is scoped to it.
 */
export function customerSession(): Middleware {
  return async (ctx, next) => {
    const authorization = ctx.get('authorization');
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
    ctx.set('WWW-Authenticate', 'Bearer realm="tollgate"');
    if (!bearer) throw commerceError('Unauthorized');
    // The request's own entity manager (api/app.ts opens one per request).
    const em = RequestContext.getEntityManager();
    if (!em) throw new Error('customerSession() runs inside a request context');
    const customer = await findSessionCustomer(em, bearer);
    if (!customer) {
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
    ctx.state.customer = customer;
    return next();
  };
}

/** The customer whose session a `customerSession()` middleware admitted. */
export const sessionCustomerOf = (ctx: Context): Customer => ctx.state.customer as Customer;
