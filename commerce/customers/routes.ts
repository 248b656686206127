import { Readable } from 'node:stream';
import Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import type { AppDependencies } from '../../api/dependencies.ts';
import { parseBody, parseParams, parseQuery } from '../../api/validation.ts';
import type { Customer } from '../../db/entities/index.ts';
import { callerOf, scope } from '../http/caller.ts';
import {
  listResource,
  organizationFilterMatches,
  readMetadataFilter,
  readPage,
  readSorting,
} from '../http/listing.ts';
import { readIdParam, refuseForeignOrganization } from '../http/wire.ts';
import {
  customerCreateInput,
  customerListQuery,
  customerSortFields,
  customerStateWire,
  customerUpdateByExternalIdInput,
  customerUpdateInput,
  customerWire,
} from './schemas.ts';
import {
  type CustomerLookup,
  createCustomer,
  deleteCustomer,
  getCustomer,
  getCustomerState,
  listCustomers,
  streamCustomers,
  updateCustomer,
} from './service.ts';

const externalIdParam = z.object({ external_id: z.string().min(1) });

const byId = (ctx: Context): CustomerLookup => ({ id: readIdParam(ctx) });
const byExternalId = (ctx: Context): CustomerLookup => ({
  externalId: parseParams(ctx.params as Record<string, string>, externalIdParam).external_id,
});

/** The export as one JSON array, written in pieces of about 64 kB as the rows stream in. */
async function* jsonArray(customers: AsyncIterable<Customer>) {
  let piece = '[';
  for await (const customer of customers) {
    piece += `${piece === '[' ? '' : ','}${JSON.stringify(customerWire(customer))}`;
    if (piece.length >= 65_536) {
      yield piece;
      piece = '';
    }
  }
  yield `${piece}]`;
}

/**
 * /v1/customers: the organization's buyers, by id or by the seller's external id, with their
 * current state (benefits, meters). Deleting is soft; a deleted customer is not found.
 */
export function customerRoutes({ orm }: AppDependencies): Router {
  const router = new Router({ prefix: '/v1/customers' });

  router.get('/', scope('customers:read'), async (ctx) => {
    const caller = callerOf(ctx);
    const page = readPage(ctx);
    const sorting = readSorting(ctx, customerSortFields, '-created_at');
    const { email, query } = parseQuery(ctx, customerListQuery);
    if (!organizationFilterMatches(ctx, caller)) {
      ctx.body = listResource([], 0, page);
      return;
    }
    const filter = { email, query, metadata: readMetadataFilter(ctx), sorting };
    const [customers, total] = await listCustomers(orm.em, caller.organizationId, filter, page);
    ctx.body = listResource(customers.map(customerWire), total, page);
  });

  router.post('/', scope('customers:write'), async (ctx) => {
    const caller = callerOf(ctx);
    const input = parseBody(ctx, customerCreateInput);
    refuseForeignOrganization(input, caller);
    const customer = await createCustomer(orm.em, caller.organizationId, input);
    ctx.status = 201;
    ctx.body = customerWire(customer);
  });

  // Polar streams a CSV file here, which the SDK cannot read: it parses the body as JSON (`any`).
  // Tollgate answers the same customers as a JSON array of `Customer`, which it can.
  router.get('/export', scope('customers:read'), async (ctx) => {
    const caller = callerOf(ctx);
    ctx.type = 'application/json';
    ctx.body = organizationFilterMatches(ctx, caller)
      ? Readable.from(jsonArray(streamCustomers(orm.em.fork(), caller.organizationId)))
      : [];
  });

  router.get('/external/:external_id', scope('customers:read'), async (ctx) => {
    ctx.body = customerWire(
      await getCustomer(orm.em, callerOf(ctx).organizationId, byExternalId(ctx)),
    );
  });

  router.patch('/external/:external_id', scope('customers:write'), async (ctx) => {
    const lookup = byExternalId(ctx);
    const input = parseBody(ctx, customerUpdateByExternalIdInput);
    const customer = await updateCustomer(orm.em, callerOf(ctx).organizationId, lookup, input);
    ctx.body = customerWire(customer);
  });

  router.delete('/external/:external_id', scope('customers:write'), async (ctx) => {
    await deleteCustomer(orm.em, callerOf(ctx).organizationId, byExternalId(ctx));
    ctx.status = 204;
  });

  router.get('/external/:external_id/state', scope('customers:read'), async (ctx) => {
    const state = await getCustomerState(orm.em, callerOf(ctx).organizationId, byExternalId(ctx));
    ctx.body = customerStateWire(state);
  });

  router.get('/:id', scope('customers:read'), async (ctx) => {
    ctx.body = customerWire(await getCustomer(orm.em, callerOf(ctx).organizationId, byId(ctx)));
  });

  router.patch('/:id', scope('customers:write'), async (ctx) => {
    const lookup = byId(ctx);
    const input = parseBody(ctx, customerUpdateInput);
    const customer = await updateCustomer(orm.em, callerOf(ctx).organizationId, lookup, input);
    ctx.body = customerWire(customer);
  });

  router.delete('/:id', scope('customers:write'), async (ctx) => {
    await deleteCustomer(orm.em, callerOf(ctx).organizationId, byId(ctx));
    ctx.status = 204;
  });

  router.get('/:id/state', scope('customers:read'), async (ctx) => {
    const state = await getCustomerState(orm.em, callerOf(ctx).organizationId, byId(ctx));
    ctx.body = customerStateWire(state);
  });

  // Customer balances (credit from refunds and adjustments) are not kept yet: always zero.
  router.get('/:id/balance', scope('customers:read'), async (ctx) => {
    await getCustomer(orm.em, callerOf(ctx).organizationId, byId(ctx));
    ctx.body = { balance: 0, currency: 'usd' };
  });

  return router;
}
