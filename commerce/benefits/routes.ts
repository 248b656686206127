import Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { authSettings } from '../../accounts/settings.ts';
import { revokeGrantsOfDeleted, updateGrantsOfBenefit } from '../../activities/benefit-grants.ts';
import type { AppDependencies } from '../../api/dependencies.ts';
import { parseBody, parseQuery } from '../../api/validation.ts';
import { benefitTypes } from '../../db/entities/benefit.ts';
import { callerOf, scope } from '../http/caller.ts';
import {
  listPage,
  listResource,
  readMetadataFilter,
  readPage,
  readQueryBoolean,
  readQueryIds,
  readQueryList,
  readSorting,
  type SortCriterion,
} from '../http/listing.ts';
import { parseCreateBody, readIdParam } from '../http/wire.ts';
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
  type BenefitGrantFilter,
  createBenefit,
  deleteBenefit,
  getBenefit,
  listBenefitGrants,
  listBenefits,
  updateBenefit,
} from './service.ts';

/** /v1/benefits and /v1/benefit-grants: what customers get with products, and who got it. */
export function benefitRoutes({ orm, config, temporal }: AppDependencies): Router {
  // Discord guild tokens are signed with the auth secret (see issueDiscordGuildToken).
  const guildTokenSecret = authSettings(config).secret;
  const router = new Router({ prefix: '/v1/benefits' });

  router.get('/', scope('benefits:read'), async (ctx) => {
    const caller = callerOf(ctx);
    const { query } = parseQuery(ctx, benefitListQuery);
    const types = readQueryList(ctx, 'type', z.enum(benefitTypes));
    const sorting = readSorting(ctx, benefitSortFields, '-created_at');
    const metadata = readMetadataFilter(ctx);
    const page = readPage(ctx);
    const filter = { types, query, metadata };
    ctx.body = await listPage(
      ctx,
      caller,
      page,
      () => listBenefits(orm.em, caller.organizationId, filter, sorting, page),
      (benefits) => benefits.map(benefitWire),
    );
  });

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

  router.get('/:id/grants', scope('benefits:read'), async (ctx) => {
    const id = readIdParam(ctx);
    const organizationId = callerOf(ctx).organizationId;
    const filter = { ...readGrantFilter(ctx), benefitId: id };
    const page = readPage(ctx);
    await getBenefit(orm.em, organizationId, id);
    const [grants, total] = await listBenefitGrants(
      orm.em,
      organizationId,
      filter,
      newestFirst,
      page,
    );
    ctx.body = listResource(grants.map(benefitGrantWire), total, page);
  });

  return router;
}

/** /v1/benefit-grants: every grant of the organization's benefits. */
export function benefitGrantRoutes({ orm }: AppDependencies): Router {
  const router = new Router({ prefix: '/v1/benefit-grants' });

  router.get('/', scope('benefits:read'), async (ctx) => {
    const caller = callerOf(ctx);
    const filter = readGrantFilter(ctx);
    const sorting = readSorting(ctx, benefitGrantSortFields, '-created_at');
    const page = readPage(ctx);
    ctx.body = await listPage(
      ctx,
      caller,
      page,
      () => listBenefitGrants(orm.em, caller.organizationId, filter, sorting, page),
      (grants) => grants.map(benefitGrantWire),
    );
  });

  return router;
}

// A benefit's grants come newest first; that list takes no sorting parameter.
const newestFirst: SortCriterion<'created_at'>[] = [{ field: 'created_at', descending: true }];

function readGrantFilter(ctx: Context): BenefitGrantFilter {
  return {
    customerIds: readQueryIds(ctx, 'customer_id'),
    isGranted: readQueryBoolean(ctx, 'is_granted'),
  };
}
