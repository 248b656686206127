import Router from '@koa/router';
import type { AppDependencies } from '../../api/dependencies.ts';
import { parseBody } from '../../api/validation.ts';
import { AppError, invalidField } from '../../core/errors.ts';
import { getCustomer } from '../customers/service.ts';
import { callerOf, scope } from '../http/caller.ts';
import { customerSessionCreateInput, customerSessionWire } from './schemas.ts';
import { createCustomerSession } from './service.ts';

/** /v1/customer-sessions: a seller opens a customer portal session for one of its customers. */
export function customerSessionRoutes({ orm, config }: AppDependencies): Router {
  const router = new Router({ prefix: '/v1/customer-sessions' });

  router.post('/', scope('customer_sessions:write'), async (ctx) => {
    const caller = callerOf(ctx);
    const input = parseBody(ctx, customerSessionCreateInput);
    const [lookup, field] =
      'customer_id' in input
        ? [{ id: input.customer_id }, 'customer_id']
        : [{ externalId: input.external_customer_id }, 'external_customer_id'];
    // Polar answers an unknown customer as a bad field, not a 404.
    const customer = await getCustomer(orm.em, caller.organizationId, lookup).catch((error) => {
      if (error instanceof AppError && error.refusal === 'not_found') {
        throw invalidField(['body', field], 'Customer does not exist.');
      }
      throw error;
    });
    const created = await createCustomerSession(orm.em, { customerId: customer.id });
    ctx.status = 201;
    ctx.body = customerSessionWire(created, customer, config.api.publicUrl);
  });

  return router;
}
