import { Readable } from 'node:stream';
import Router from '@koa/router';
import type { Context } from 'koa';
import type { AppDependencies } from '../../api/dependencies.ts';
import { parseBody, parseParams, parseQuery } from '../../api/validation.ts';
import type { Customer } from '../../db/entities/index.ts';
import { revokeGrantsOfDeleted } from '../../processes/benefit-grant-requests.ts';
import { commerceError } from '../errors.ts';
import { callerOf, scope } from '../http/caller.ts';
import {
  fieldParameter,
  idsParameter,
  listParameters,
  listResource,
  listRoute,
  metadataParameter,
  organizationFilterMatches,
  pageParameters,
  readsList,
  sortingParameter,
} from '../http/listing.ts';
import { ReadCache } from '../http/read-cache.ts';
import { parseCreateBody, readIdParam } from '../http/request.ts';
import { revokeSubscriptionsOf } from '../http/subscription-changes.ts';
import { adjustCustomerBalance, getCustomerBalance, listBalanceEntries } from './balance.ts';
import {
  customerBalanceAdjustmentInput,
  customerBalanceEntryWire,
  customerBalanceQuery,
  customerCreateInput,
  customerExternalIdParams,
  customerListQuery,
  customerSortFields,
  customerStateWire,
  customerUpdateByExternalIdInput,
  customerUpdateInput,
  customerWire,
} from './schemas.ts';
import {
  createCustomer,
  deleteCustomer,
  getCustomer,
  listCustomers,
  streamCustomers,
  updateCustomer,
} from './service.ts';
import { type CustomerLookup, getCustomerState } from './state.ts';

const byId = (ctx: Context): CustomerLookup => ({ id: readIdParam(ctx) });
const byExternalId = (ctx: Context): CustomerLookup => ({
  externalId: parseParams(ctx.params as Record<string, string>, customerExternalIdParams)
    .external_id,
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

/** The query of a customer's balance entries (Tollgate's list). */
export const balanceEntryListParameters = listParameters({ page: pageParameters });

/** The query of the customer list (documented by customers:list). */
export const customerListParameters = listParameters({
  page: pageParameters,
  sorting: sortingParameter(customerSortFields, '-created_at'),
  email: fieldParameter(customerListQuery, 'email'),
  query: fieldParameter(customerListQuery, 'query'),
  metadata: metadataParameter,
  organizationIds: idsParameter('organization_id'),
});

/**
 * /v1/customers: the organization's buyers, by id or by the seller's external id, with their
 * current state (benefits, meters). Deleting is soft; a deleted customer is not found.
 */
export function customerRoutes({ orm, config, changes, temporal }: AppDependencies): Router {
  const router = new Router({ prefix: '/v1/customers' });
  // Apps ask for a customer's state on every page they gate: kept per customer, as JSON bytes,
  // until a change to what it holds is announced (see announceCustomerStateChange).
  const states = new ReadCache<Buffer>(changes, 'customerState', {
    maxAgeMs: 5 * 60_000,
    maxKeysPerScope: 10_000,
    maxScopes: 1000,
  });

  router.get(
    '/',
    scope('customers:read'),
    listRoute({
      query: customerListParameters,
      list: (caller, query) => listCustomers(orm.em, caller.organizationId, query),
      serialize: (customers) => customers.map(customerWire),
    }),
  );

  router.post('/', scope('customers:write'), async (ctx) => {
    const caller = callerOf(ctx);
    const input = parseCreateBody(ctx, customerCreateInput, caller);
    if (input.test_clock_id && !config.testClocks.enabled) {
      throw commerceError('TestClockNotAvailable');
    }
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

  // A customer answers alike by its id and by the seller's external id for it.
  const addressings = [
    {
      path: '/external/:external_id',
      lookupOf: byExternalId,
      updateInput: customerUpdateByExternalIdInput,
    },
    { path: '/:id', lookupOf: byId, updateInput: customerUpdateInput },
  ];
  for (const { path, lookupOf, updateInput } of addressings) {
    router.get(path, scope('customers:read'), async (ctx) => {
      const customer = await getCustomer(orm.em, callerOf(ctx).organizationId, lookupOf(ctx));
      ctx.body = customerWire(customer);
    });

    router.patch(path, scope('customers:write'), async (ctx) => {
      const lookup = lookupOf(ctx);
      const input = parseBody(ctx, updateInput);
      const customer = await updateCustomer(orm.em, callerOf(ctx).organizationId, lookup, input);
      ctx.body = customerWire(customer);
    });

    /**
     * The customer's live subscriptions end first, now, each through its workflow (no renewal
     * charges a deleted customer; one being renewed refuses, and nothing is deleted); then the
     * customer is deleted, one a checkout completed meanwhile ends too, and the customer's other
     * grants are revoked.
     */
    router.delete(path, scope('customers:write'), async (ctx) => {
      const { organizationId } = callerOf(ctx);
      const lookup = lookupOf(ctx);
      const found = await getCustomer(orm.em.fork(), organizationId, lookup);
      await revokeSubscriptionsOf(orm.em.fork(), temporal, found.id);
      const customer = await deleteCustomer(orm.em, organizationId, lookup);
      await revokeSubscriptionsOf(orm.em.fork(), temporal, customer.id);
      await revokeGrantsOfDeleted(orm.em.fork(), temporal, { customerId: customer.id });
      ctx.status = 204;
    });

    router.get(`${path}/state`, scope('customers:read'), async (ctx) => {
      const { organizationId } = callerOf(ctx);
      const lookup = lookupOf(ctx);
      const answer = async () =>
        customerStateWire(await getCustomerState(orm.em, organizationId, lookup));
      // Kept by customer id (what changes are announced by); by external id, read each time.
      if ('id' in lookup) {
        ctx.type = 'json';
        ctx.body = await states.read(organizationId, lookup.id, async () =>
          Buffer.from(JSON.stringify(await answer())),
        );
      } else {
        ctx.body = await answer();
      }
    });
  }

  // The sum of the customer's ledger: credit positive (Polar's sign), in one currency.
  router.get('/:id/balance', scope('customers:read'), async (ctx) => {
    const { currency } = parseQuery(ctx, customerBalanceQuery);
    ctx.body = await getCustomerBalance(orm.em, callerOf(ctx).organizationId, byId(ctx), currency);
  });

  // Tollgate's: the ledger itself, newest first, for the dashboard's customer page.
  router.get(
    '/:id/balance/entries',
    scope('customers:read'),
    readsList(balanceEntryListParameters, async (ctx, { page }) => {
      const { organizationId } = callerOf(ctx);
      const { entries, count } = await listBalanceEntries(orm.em, organizationId, byId(ctx), page);
      ctx.body = listResource(entries.map(customerBalanceEntryWire), count, page);
    }),
  );

  // Tollgate's: a seller credits (or debits) the customer's balance, saying why.
  router.post('/:id/balance/adjustments', scope('customers:write'), async (ctx) => {
    const caller = callerOf(ctx);
    const input = parseBody(ctx, customerBalanceAdjustmentInput);
    const { entry, balance } = await adjustCustomerBalance(orm.em, caller, byId(ctx), input);
    ctx.status = 201;
    ctx.body = {
      entry: customerBalanceEntryWire(entry),
      balance: { balance, currency: entry.currency },
    };
  });

  return router;
}
