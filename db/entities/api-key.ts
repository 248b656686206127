import { defineEntity, p } from '@mikro-orm/core';
import { idColumn, timestampColumns } from './columns.ts';
import { User } from './user.ts';

/**
 * An API key (Better Auth's `apikey` table). Only the key's SHA-256 is stored; `start` keeps its
 * first characters so people can tell their keys apart.
 */
const ApiKeySchema = defineEntity({
  name: 'ApiKey',
  tableName: 'apikey',
  properties: {
    id: idColumn(),
    user: () => p.manyToOne(User).deleteRule('cascade').index(),
    name: p.string().nullable(),
    prefix: p.string().nullable(),
    start: p.string().nullable(),
    /** Hex SHA-256 of the whole key. */
    key: p.string().unique(),
    enabled: p.boolean().default(true),
    expiresAt: p.datetime().nullable().index(),
    /** Uses left; null means unlimited. */
    remaining: p.integer().nullable(),
    /** Milliseconds: a month does not fit in an integer. */
    refillInterval: p.bigint('number').nullable(),
    refillAmount: p.integer().nullable(),
    lastRefillAt: p.datetime().nullable(),
    rateLimitEnabled: p.boolean().default(true),
    /** Milliseconds. */
    rateLimitTimeWindow: p.bigint('number').nullable(),
    rateLimitMax: p.integer().nullable(),
    requestCount: p.integer().default(0),
    lastRequest: p.datetime().nullable(),
    /** JSON text: `{ resource: [action, ...] }`. */
    permissions: p.text().nullable(),
    /** JSON text, as the client sent it. */
    metadata: p.text().nullable(),
    ...timestampColumns(),
  },
});

export class ApiKey extends ApiKeySchema.class {}
ApiKeySchema.setClass(ApiKey);
