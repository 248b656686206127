import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

// scrypt with N=2^14, r=16, p=1: the parameters Better Auth uses, so hashes move between the two.
const parameters = { N: 16384, r: 16, p: 1, maxmem: 64 * 1024 * 1024 } as const;
const keyLength = 64;

function deriveKey(password: string, salt: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, keyLength, parameters, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/** Hashes a password as `salt:key`, both hex. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16).toString('hex');
  const key = await deriveKey(password, salt);
  return `${salt}:${key.toString('hex')}`;
}

/** Checks a password against a stored hash in constant time; a malformed hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [salt, keyHex] = stored.split(':');
  if (!salt || !keyHex || keyHex.length !== keyLength * 2) return false;
  const key = await deriveKey(password, salt);
  return timingSafeEqual(key, Buffer.from(keyHex, 'hex'));
}
