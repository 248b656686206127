import { idPath, type Operation, pageOf } from '../http/openapi.ts';
import {
  benefitGrantListParameters,
  benefitGrantsOfBenefitParameters,
  benefitListParameters,
} from './routes.ts';
import {
  benefitCreateInput,
  benefitGrantWireSchema,
  benefitUpdateInput,
  benefitWireSchema,
} from './schemas.ts';

const tag = 'Benefits';
const read = ['benefits:read', 'benefits:write'] as const;
const write = ['benefits:write'] as const;

/** The operations of benefitRoutes (/v1/benefits) and benefitGrantRoutes (/v1/benefit-grants). */
export const benefitOperations: Operation[] = [
  {
    method: 'get',
    path: '/v1/benefits',
    operationId: 'benefits:list',
    summary: 'List benefits',
    tag,
    scopes: read,
    query: benefitListParameters.schema,
    response: { status: 200, schema: pageOf(benefitWireSchema) },
  },
  {
    method: 'post',
    path: '/v1/benefits',
    operationId: 'benefits:create',
    summary: 'Create a benefit',
    tag,
    scopes: write,
    body: benefitCreateInput,
    response: { status: 201, schema: benefitWireSchema },
  },
  {
    method: 'get',
    path: '/v1/benefits/:id',
    operationId: 'benefits:get',
    summary: 'Get a benefit',
    tag,
    scopes: read,
    params: idPath,
    response: { status: 200, schema: benefitWireSchema },
    errors: [404],
  },
  {
    method: 'patch',
    path: '/v1/benefits/:id',
    operationId: 'benefits:update',
    summary: 'Update a benefit',
    tag,
    scopes: write,
    params: idPath,
    body: benefitUpdateInput,
    response: { status: 200, schema: benefitWireSchema },
    errors: [404],
  },
  {
    method: 'delete',
    path: '/v1/benefits/:id',
    operationId: 'benefits:delete',
    summary: 'Delete a benefit',
    tag,
    scopes: write,
    params: idPath,
    response: { status: 204 },
    errors: [404],
  },
  {
    method: 'get',
    path: '/v1/benefits/:id/grants',
    operationId: 'benefits:grants',
    summary: 'List the grants of a benefit',
    tag,
    scopes: read,
    params: idPath,
    query: benefitGrantsOfBenefitParameters.schema,
    response: { status: 200, schema: pageOf(benefitGrantWireSchema) },
    errors: [404],
  },
  {
    method: 'get',
    path: '/v1/benefit-grants',
    operationId: 'benefit-grants:list',
    summary: 'List the grants of every benefit',
    tag,
    scopes: read,
    query: benefitGrantListParameters.schema,
    response: { status: 200, schema: pageOf(benefitGrantWireSchema) },
  },
];
