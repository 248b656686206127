import { randomBytes } from 'node:crypto';

// Random bytes drawn 4 KiB at a time: one call per id costs more than the rest of the id (an
// ingested batch makes a thousand).
const poolSize = 4096;
let randomPool = randomBytes(poolSize);
let poolOffset = 0;

/** 16 fresh random bytes, copied out of the pool (never handed out twice). */
function randomChunk(): Buffer {
  if (poolOffset + 16 > poolSize) {
    randomPool = randomBytes(poolSize);
    poolOffset = 0;
  }
  const chunk = Buffer.from(randomPool.subarray(poolOffset, poolOffset + 16));
  poolOffset += 16;
  return chunk;
}

/**
 * A UUIDv7 (RFC 9562): time-ordered, so new rows land at the end of primary-key indexes
 * instead of at random pages.
 */
export function newId(now: number = Date.now()): string {
  const bytes = randomChunk();
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x70; // version 7
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80; // RFC 9562 variant
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids from requests are checked before they reach a uuid column: a malformed one is "not found". */
export function isUuid(value: string): boolean {
  return uuidPattern.test(value);
}
