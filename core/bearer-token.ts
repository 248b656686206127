import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * Whether an Authorization header presents `expected` as its bearer token (never, when none is
 * configured). Comparing digests in constant time keeps both the token and its length out of
 * reach of timing.
 */
export function bearerTokenCheck(
  expected: string | undefined,
): (authorization: string | undefined) => boolean {
  const expectedDigest = expected === undefined ? undefined : digest(expected);
  return (authorization) => {
    const presented = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
    return Boolean(
      expectedDigest && presented && timingSafeEqual(digest(presented), expectedDigest),
    );
  };
}
