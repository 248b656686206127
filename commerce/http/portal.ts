import type { Middleware } from 'koa';
import type { AppDependencies } from '../../api/dependencies.ts';
import type { Customer } from '../../db/entities/index.ts';
import type { Page } from '../../db/listing.ts';
import { customerSession, sessionCustomerOf } from './customer-session.ts';
import {
  idsParameter,
  type ListRoute,
  listParameters,
  listRoute,
  pageParameters,
} from './listing.ts';
import { publicRateLimit } from './rate-limits.ts';

/**
 * What every customer portal route file starts with: the customer session check, the public
 * per-IP limits, and `list`, a list of the session customer's own things behind both.
 */
export function portalGate(dependencies: AppDependencies) {
  const session = customerSession(dependencies);
  const limit = publicRateLimit(dependencies);
  const list = <Query extends { page: Page }, Row, Wire>(
    route: Omit<ListRoute<Customer, Query, Row, Wire>, 'lister'>,
  ): Middleware[] => [
    limit('portalRead'),
    session,
    listRoute({ ...route, lister: sessionCustomerOf }),
  ];
  return { session, limit, list };
}

/** The query of a portal list of benefit-bound things: a page, benefits and organizations. */
export const benefitBoundListParameters = listParameters({
  page: pageParameters,
  benefitIds: idsParameter('benefit_id'),
  organizationIds: idsParameter('organization_id'),
});
