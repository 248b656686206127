import Router from '@koa/router';
import { z } from 'zod';
import { authSettings } from '../../accounts/settings.ts';
import type { AppDependencies } from '../../api/dependencies.ts';
import { parseBody } from '../../api/validation.ts';
import type { SortCriterion } from '../../db/listing.ts';
import { benefitTypes } from '../../domain/benefit-types.ts';
import {
  revokeGrantsOfDeleted,
  updateGrantsOfBenefit,
} from '../../processes/benefit-grant-requests.ts';
import { callerOf, scope } from '../http/caller.ts';
import {
  booleanParameter,
  fieldParameter,
  idsParameter,
  listParameters,
  listRoute,
  metadataParameter,
  pageParameters,
  sortingParameter,
  valuesParameter,
} from '../http/listing.ts';
import { parseCreateBody, readIdParam } from '../http/request.ts';
import {
  benefitCreateInput,
  benefitGrantSortFields,
  benefitGrantWire,
  benefitListQuery,
  benefitSortFields,
  benefitUpdateInput,
  benefitWire,
} from './schemas.ts';
import {
  createBenefit,
  deleteBenefit,
  getBenefit,
  listBenefitGrants,
  listBenefits,
  updateBenefit,
} from './service.ts';

const benefitType = z.enum(benefitTypes);

/** The query of the benefit list (documented by benefits:list). */
export const benefitListParameters = listParameters({
  query: fieldParameter(benefitListQuery, 'query'),
  types: valuesParameter('type', benefitType),
  sorting: sortingParameter(benefitSortFields, '-created_at'),
  metadata: metadataParameter,
  page: pageParameters,
  organizationIds: idsParameter('organization_id'),
});

/** The query of the organization's grant list (documented by benefit-grants:list). */
export const benefitGrantListParameters = listParameters({
  customerIds: idsParameter('customer_id'),
  isGranted: booleanParameter('is_granted'),
  sorting: sortingParameter(benefitGrantSortFields, '-created_at'),
  page: pageParameters,
  organizationIds: idsParameter('organization_id'),
});

/**
 * The query of a benefit's grant list (documented by benefits:grants), which takes no sorting.
 * The benefit's id (a path parameter, not documented here) is read with it, first as always.
 */
export const benefitGrantsOfBenefitParameters = listParameters({
  benefitId: { documented: {}, read: (ctx) => readIdParam(ctx) },
  customerIds: idsParameter('customer_id'),
  isGranted: booleanParameter('is_granted'),
  page: pageParameters,
});

// A benefit's grants come newest first.
const newestFirst: SortCriterion<'created_at'>[] = [{ field: 'created_at', descending: true }];

/** /v1/benefits and /v1/benefit-grants: what customers get with products, and who got it. */
export function benefitRoutes({ orm, config, temporal }: AppDependencies): Router {
  // Discord guild tokens are signed with the auth secret (see issueDiscordGuildToken).
  const guildTokenSecret = authSettings(config).secret;
  const router = new Router({ prefix: '/v1/benefits' });

  router.get(
    '/',
    scope('benefits:read'),
    listRoute({
      query: benefitListParameters,
      list: (caller, query) => listBenefits(orm.em, caller.organizationId, query),
      serialize: (benefits) => benefits.map(benefitWire),
    }),
  );

  router.post('/', scope('benefits:write'), async (ctx) => {
    const caller = callerOf(ctx);
    const input = parseCreateBody(ctx, benefitCreateInput, caller);
    const benefit = await createBenefit(orm.em, caller.organizationId, input, guildTokenSecret);
    ctx.status = 201;
    ctx.body = benefitWire(benefit);
  });

  router.get('/:id', scope('benefits:read'), async (ctx) => {
    const id = readIdParam(ctx);
    ctx.body = benefitWire(await getBenefit(orm.em, callerOf(ctx).organizationId, id));
  });

  router.patch('/:id', scope('benefits:write'), async (ctx) => {
    const id = readIdParam(ctx);
    const input = parseBody(ctx, benefitUpdateInput);
    const organizationId = callerOf(ctx).organizationId;
    const benefit = await updateBenefit(orm.em, organizationId, id, input, guildTokenSecret);
    // Its grants follow new settings (limits, files, role, repository) in their workflows.
    if (input.properties) await updateGrantsOfBenefit(orm.em.fork(), temporal, id);
    ctx.body = benefitWire(benefit);
  });

  router.delete('/:id', scope('benefits:write'), async (ctx) => {
    const id = readIdParam(ctx);
    await deleteBenefit(orm.em, callerOf(ctx).organizationId, id);
    await revokeGrantsOfDeleted(orm.em.fork(), temporal, { benefitId: id });
    ctx.status = 204;
  });

  router.get(
    '/:id/grants',
    scope('benefits:read'),
    listRoute({
      // The benefit's own grants: `organization_id` is no filter of this list.
      ownOrganizationOnly: false,
      query: benefitGrantsOfBenefitParameters,
      list: async ({ organizationId }, query) => {
        await getBenefit(orm.em, organizationId, query.benefitId);
        return listBenefitGrants(orm.em, organizationId, { ...query, sorting: newestFirst });
      },
      serialize: (grants) => grants.map(benefitGrantWire),
    }),
  );

  return router;
}

/** /v1/benefit-grants: every grant of the organization's benefits. */
export function benefitGrantRoutes({ orm }: AppDependencies): Router {
  const router = new Router({ prefix: '/v1/benefit-grants' });

  router.get(
    '/',
    scope('benefits:read'),
    listRoute({
      query: benefitGrantListParameters,
      list: (caller, query) => listBenefitGrants(orm.em, caller.organizationId, query),
      serialize: (grants) => grants.map(benefitGrantWire),
    }),
  );

  return router;
}
