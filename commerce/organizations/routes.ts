import Router from '@koa/router';
import { authSettings } from '../../accounts/settings.ts';
import type { AppDependencies } from '../../api/dependencies.ts';
import { parseBody } from '../../api/validation.ts';
import { resourceNotFound } from '../errors.ts';
import { callerOf, scope, signedInUser } from '../http/caller.ts';
import {
  fieldParameter,
  listParameters,
  listRoute,
  pageParameters,
  sortingParameter,
} from '../http/listing.ts';
import { publicRateLimit } from '../http/rate-limits.ts';
import { ReadCache } from '../http/read-cache.ts';
import { readIdParam } from '../http/request.ts';
import { customerProductWire, serializeProducts } from '../products/service.ts';
import {
  organizationCreateInput,
  organizationListQuery,
  organizationSortFields,
  organizationUpdateInput,
  organizationWire,
} from './schemas.ts';
import {
  createSellerOrganization,
  findOrganizationIdBySlug,
  getOrganization,
  getStorefront,
  updateOrganization,
} from './service.ts';

/** The query of the organization list (documented by organizations:list). */
export const organizationListParameters = listParameters({
  slug: fieldParameter(organizationListQuery, 'slug'),
  page: pageParameters,
  // Checked like every list's sorting, though a list of at most one is in every order.
  sorting: sortingParameter(organizationSortFields, 'created_at'),
});

/**
 * /v1/organizations: the caller's own seller organization. A caller acts for exactly one
 * organization, so the list holds at most that one and any other id is "not found". Creating
 * one is a person's act, from their signed-in session.
 */
export function organizationRoutes(dependencies: AppDependencies): Router {
  const { orm, config } = dependencies;
  const router = new Router({ prefix: '/v1/organizations' });
  const limit = publicRateLimit(dependencies);
  const person = signedInUser(dependencies);
  const { organizations: limits } = authSettings(config);

  // A person (dashboard session) creates an organization and owns it; no organization's token can.
  router.post('/', limit('organizationCreate'), async (ctx) => {
    const creator = await person(ctx);
    const input = parseBody(ctx, organizationCreateInput);
    const organization = await createSellerOrganization(orm.em, limits, creator, input);
    ctx.status = 201;
    ctx.body = organizationWire(organization);
  });

  router.get(
    '/',
    scope('organizations:read'),
    listRoute({
      // The list is of the caller's organization: `organization_id` is no filter of it.
      ownOrganizationOnly: false,
      query: organizationListParameters,
      list: async (caller, { slug, page }) => {
        const organization = await getOrganization(orm.em, caller.organizationId);
        const matches = !slug || organization.slug === slug;
        return [matches && page.page === 1 ? [organization] : [], matches ? 1 : 0];
      },
      serialize: (organizations) => organizations.map(organizationWire),
    }),
  );

  router.get('/:id', scope('organizations:read'), async (ctx) => {
    const id = readIdParam(ctx);
    if (id !== callerOf(ctx).organizationId) throw resourceNotFound('Organization not found');
    ctx.body = organizationWire(await getOrganization(orm.em, id));
  });

  router.patch('/:id', scope('organizations:write'), async (ctx) => {
    const id = readIdParam(ctx);
    if (id !== callerOf(ctx).organizationId) throw resourceNotFound('Organization not found');
    const input = parseBody(ctx, organizationUpdateInput);
    ctx.body = organizationWire(await updateOrganization(orm.em, id, input));
  });

  return router;
}

/**
 * /v1/customer-portal/organizations/{slug}: the seller's public storefront (no credentials, a
 * per-IP limit): the organization and the products it offers, as buyers see them.
 */
export function customerPortalOrganizationRoutes(dependencies: AppDependencies): Router {
  const { orm, config, changes } = dependencies;
  const router = new Router({ prefix: '/v1/customer-portal/organizations' });
  const limit = publicRateLimit(dependencies);
  // Buyers read a storefront far more often than its catalog or settings change: kept per
  // organization until a change to either is announced. Which organization a slug names is
  // kept a minute, so a slug given up answers its old storefront that long at most.
  const storefronts = new ReadCache<Buffer>(changes, 'catalog', {
    maxAgeMs: 5 * 60_000,
    maxKeysPerScope: 1,
    maxScopes: 1000,
  });
  const slugs = new ReadCache<string | null>(changes, [], {
    maxAgeMs: 60_000,
    maxKeysPerScope: 1,
    maxScopes: 10_000,
  });

  router.get('/:slug', limit('storefrontRead'), async (ctx) => {
    const slug = ctx.params.slug ?? '';
    const findId = () => findOrganizationIdBySlug(orm.em, slug);
    const organizationId = await slugs.read(slug, '', findId, { worthKeeping: (id) => !!id });
    if (!organizationId) throw resourceNotFound('Organization not found');
    ctx.type = 'json';
    ctx.body = await storefronts.read(organizationId, '', async () => {
      const { organization, products } = await getStorefront(orm.em, organizationId);
      const wires = await serializeProducts(orm.em, products, config.api.publicUrl);
      const storefront = {
        organization: organizationWire(organization),
        products: wires.map(customerProductWire),
      };
      return Buffer.from(JSON.stringify(storefront));
    });
  });

  return router;
}
