import { idPath, type Operation, pageOf } from '../http/openapi.ts';
import { fileListParameters } from './routes.ts';
import {
  fileCreateInput,
  fileUpdateInput,
  fileUploadCompletedInput,
  fileUploadWireSchema,
  fileWireSchema,
} from './schemas.ts';

const tag = 'Files';
const read = ['files:read', 'files:write'] as const;
const write = ['files:write'] as const;

/** The operations of fileRoutes (/v1/files). Upload URLs also answer CORS preflights (OPTIONS), not documented. */
export const fileOperations: Operation[] = [
  {
    method: 'get',
    path: '/v1/files',
    operationId: 'files:list',
    summary: 'List files',
    tag,
    scopes: read,
    query: fileListParameters.schema,
    response: { status: 200, schema: pageOf(fileWireSchema) },
  },
  {
    method: 'post',
    path: '/v1/files',
    operationId: 'files:create',
    summary: 'Create a file and plan its multipart upload',
    tag,
    scopes: write,
    body: fileCreateInput,
    response: { status: 201, schema: fileUploadWireSchema },
  },
  {
    method: 'post',
    path: '/v1/files/:id/uploaded',
    operationId: 'files:uploaded',
    summary: 'Complete a file upload',
    tag,
    scopes: write,
    params: idPath,
    body: fileUploadCompletedInput,
    response: { status: 200, schema: fileWireSchema },
    errors: [404],
  },
  {
    method: 'patch',
    path: '/v1/files/:id',
    operationId: 'files:update',
    summary: 'Update a file',
    tag,
    scopes: write,
    params: idPath,
    body: fileUpdateInput,
    response: { status: 200, schema: fileWireSchema },
    errors: [404],
  },
  {
    method: 'delete',
    path: '/v1/files/:id',
    operationId: 'files:delete',
    summary: 'Delete a file',
    tag,
    scopes: write,
    params: idPath,
    response: { status: 204 },
    errors: [404],
  },
  {
    method: 'put',
    path: '/v1/files/uploads/:grant',
    operationId: 'files:upload_part',
    summary: 'Upload the bytes of one part to its signed URL (the URL is the credential)',
    tag,
    auth: 'public',
    response: { status: 200 },
    errors: [403],
  },
  {
    method: 'get',
    path: '/v1/files/public/:id/:name',
    operationId: 'files:public_get',
    summary: 'Download a product media or avatar file',
    tag,
    auth: 'public',
    response: { status: 200, contentType: 'application/octet-stream' },
    errors: [404],
  },
];
