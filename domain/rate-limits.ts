/** At most `max` requests per window of `windowSeconds`. */
export interface Limit {
  max: number;
  windowSeconds: number;
}

/** `limit` with its maximum multiplied by `scale` (TOLLGATE_AUTH_RATE_LIMIT), never below one. */
export const scaledLimit = <L extends Limit>(limit: L, scale: number): L => ({
  ...limit,
  max: Math.max(1, Math.round(limit.max * scale)),
});
