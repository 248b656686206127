/**
 * A repeatable source of numbers in [0, 1) (mulberry32): faults drawn "at random" by the Stripe
 * simulator and the soak's receivers replay the same way from the same seed.
 */
export function seededRandom(seed: number): () => number {
  let current = seed >>> 0;
  return () => {
    current = (current + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(current ^ (current >>> 15), current | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296;
  };
}
