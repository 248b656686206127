import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { AppDependencies } from '../../api/dependencies.ts';
import { parseBody } from '../../api/validation.ts';
import { startTestClockAdvance } from '../../processes/starters.ts';
import { commerceError } from '../errors.ts';
import { callerOf, scope } from '../http/caller.ts';
import {
  idsParameter,
  listParameters,
  listRoute,
  pageParameters,
  sortingParameter,
} from '../http/listing.ts';
import { readIdParam } from '../http/request.ts';
import {
  testClockAdvanceInput,
  testClockCreateInput,
  testClockSortFields,
  testClockWire,
} from './schemas.ts';
import {
  advanceTestClock,
  createTestClock,
  deleteTestClock,
  getTestClock,
  listTestClocks,
} from './service.ts';

/** The query of the test clock list (documented by test_clocks:list). */
export const testClockListParameters = listParameters({
  page: pageParameters,
  sorting: sortingParameter(testClockSortFields, '-created_at'),
  organizationIds: idsParameter('organization_id'),
});

/**
 * /v1/test-clocks: sandbox clocks that the subscriptions of their customers follow instead of
 * real time (Tollgate's own; Polar has none). Reads need subscriptions:read, changes
 * subscriptions:write. Off in production unless TOLLGATE_TEST_CLOCKS=on.
 */
export function testClockRoutes({ orm, config, temporal }: AppDependencies): Router {
  const router = new Router({ prefix: '/v1/test-clocks' });
  const sandboxOnly: Middleware = (_ctx, next) => {
    if (!config.testClocks.enabled) throw commerceError('TestClockNotAvailable');
    return next();
  };
  const read = [scope('subscriptions:read'), sandboxOnly];
  const write = [scope('subscriptions:write'), sandboxOnly];
  const startAdvance = (testClockId: string, frozenTime: Date) =>
    startTestClockAdvance(temporal, { testClockId, frozenTime: frozenTime.toISOString() });

  router.get(
    '/',
    ...read,
    listRoute({
      query: testClockListParameters,
      list: (caller, query) => listTestClocks(orm.em, caller.organizationId, query),
      serialize: (clocks) => clocks.map(testClockWire),
    }),
  );

  router.post('/', ...write, async (ctx) => {
    const input = parseBody(ctx, testClockCreateInput);
    const clock = await createTestClock(orm.em, callerOf(ctx).organizationId, input);
    ctx.status = 201;
    ctx.body = testClockWire(clock);
  });

  router.get('/:id', ...read, async (ctx) => {
    const id = readIdParam(ctx);
    ctx.body = testClockWire(await getTestClock(orm.em, callerOf(ctx).organizationId, id));
  });

  router.delete('/:id', ...write, async (ctx) => {
    const id = readIdParam(ctx);
    await deleteTestClock(orm.em, callerOf(ctx).organizationId, id);
    ctx.status = 204;
  });

  // Answers at once, the clock `advancing`; it is `ready` again once every live subscription
  // on it was woken (their renewals then run in their own workflows).
  router.post('/:id/advance', ...write, async (ctx) => {
    const id = readIdParam(ctx);
    const input = parseBody(ctx, testClockAdvanceInput);
    const organizationId = callerOf(ctx).organizationId;
    const clock = await advanceTestClock(orm.em, organizationId, id, input, startAdvance);
    ctx.body = testClockWire(clock);
  });

  return router;
}
