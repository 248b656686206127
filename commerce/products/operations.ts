import { idPath, type Operation, pageOf } from '../http/openapi.ts';
import { productListParameters } from './routes.ts';
import {
  productBenefitsInput,
  productCreateInput,
  productUpdateInput,
  productWireSchema,
} from './schemas.ts';

const tag = 'Products';
const read = ['products:read', 'products:write'] as const;
const write = ['products:write'] as const;

/** The operations of productRoutes (/v1/products), prices inside each product. */
export const productOperations: Operation[] = [
  {
    method: 'get',
    path: '/v1/products',
    operationId: 'products:list',
    summary: 'List products',
    tag,
    scopes: read,
    query: productListParameters.schema,
    response: { status: 200, schema: pageOf(productWireSchema) },
  },
  {
    method: 'post',
    path: '/v1/products',
    operationId: 'products:create',
    summary: 'Create a product',
    tag,
    scopes: write,
    body: productCreateInput,
    response: { status: 201, schema: productWireSchema },
  },
  {
    method: 'get',
    path: '/v1/products/:id',
    operationId: 'products:get',
    summary: 'Get a product',
    tag,
    scopes: read,
    params: idPath,
    response: { status: 200, schema: productWireSchema },
    errors: [404],
  },
  {
    method: 'patch',
    path: '/v1/products/:id',
    operationId: 'products:update',
    summary: 'Update a product',
    tag,
    scopes: write,
    params: idPath,
    body: productUpdateInput,
    response: { status: 200, schema: productWireSchema },
    errors: [404],
  },
  {
    method: 'post',
    path: '/v1/products/:id/benefits',
    operationId: 'products:update_benefits',
    summary: 'Replace the benefits of a product',
    tag,
    scopes: write,
    params: idPath,
    body: productBenefitsInput,
    response: { status: 200, schema: productWireSchema },
    errors: [404],
  },
];
