import { defineEntity, p } from '@mikro-orm/core';

/**
 * One counter per rate-limit key (rule, client IP or account), shared by every API process
 * because it lives in PostgreSQL.
 */
const RateLimitSchema = defineEntity({
  name: 'RateLimit',
  tableName: 'rate_limits',
  properties: {
    key: p.string().primary(),
    count: p.integer(),
    windowStartedAt: p.datetime(),
  },
});

export class RateLimit extends RateLimitSchema.class {}
RateLimitSchema.setClass(RateLimit);
