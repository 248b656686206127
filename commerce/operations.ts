import type { Operation } from './http/openapi.ts';

/**
 * Every documented /v1 operation, gathered from each area's operations.ts: the OpenAPI
 * document at /v1/openapi.json is built from this list, and commerce/http/openapi.test.ts
 * checks it against the routes the app registers.
 */
export const commerceOperations: readonly Operation[] = [];
