import Router from '@koa/router';
import { z } from 'zod';
import type { AppDependencies } from '../../api/dependencies.ts';
import { parseBody } from '../../api/validation.ts';
import { customFieldTypes } from '../../domain/custom-field-values.ts';
import { callerOf, scope } from '../http/caller.ts';
import {
  fieldParameter,
  idsParameter,
  listParameters,
  listRoute,
  pageParameters,
  sortingParameter,
  valuesParameter,
} from '../http/listing.ts';
import { parseCreateBody, readIdParam } from '../http/request.ts';
import {
  customFieldCreateInput,
  customFieldListQuery,
  customFieldSortFields,
  customFieldUpdateInput,
  customFieldWire,
} from './schemas.ts';
import {
  createCustomField,
  deleteCustomField,
  getCustomField,
  listCustomFields,
  updateCustomField,
} from './service.ts';

const customFieldType = z.enum(customFieldTypes);
/** The query of the custom field list (documented by custom-fields:list). */
export const customFieldListParameters = listParameters({
  query: fieldParameter(customFieldListQuery, 'query'),
  types: valuesParameter('type', customFieldType),
  sorting: sortingParameter(customFieldSortFields, 'slug'),
  page: pageParameters,
  organizationIds: idsParameter('organization_id'),
});

/** /v1/custom-fields: the fields sellers ask customers to fill in at checkout. */
export function customFieldRoutes({ orm }: AppDependencies): Router {
  const router = new Router({ prefix: '/v1/custom-fields' });

  router.get(
    '/',
    scope('custom_fields:read'),
    listRoute({
      query: customFieldListParameters,
      list: (caller, query) => listCustomFields(orm.em, caller.organizationId, query),
      serialize: (fields) => fields.map(customFieldWire),
    }),
  );

  router.post('/', scope('custom_fields:write'), async (ctx) => {
    const caller = callerOf(ctx);
    const input = parseCreateBody(ctx, customFieldCreateInput, caller);
    const field = await createCustomField(orm.em, caller.organizationId, input);
    ctx.status = 201;
    ctx.body = customFieldWire(field);
  });

  router.get('/:id', scope('custom_fields:read'), async (ctx) => {
    const id = readIdParam(ctx);
    ctx.body = customFieldWire(await getCustomField(orm.em, callerOf(ctx).organizationId, id));
  });

  router.patch('/:id', scope('custom_fields:write'), async (ctx) => {
    const id = readIdParam(ctx);
    const input = parseBody(ctx, customFieldUpdateInput);
    const field = await updateCustomField(orm.em, callerOf(ctx).organizationId, id, input);
    ctx.body = customFieldWire(field);
  });

  router.delete('/:id', scope('custom_fields:write'), async (ctx) => {
    const id = readIdParam(ctx);
    await deleteCustomField(orm.em, callerOf(ctx).organizationId, id);
    ctx.status = 204;
  });

  return router;
}
