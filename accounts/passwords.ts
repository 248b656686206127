import { hash, verify } from '@node-rs/argon2';

/**
 * Argon2id at OWASP's recommended minimum (19 MiB of memory, 2 passes, 1 lane): about 20 ms
 * per hash here, computed natively off the event loop. The parameters travel in the PHC string,
 * so raising them later still verifies old hashes.
 */
// `Algorithm.Argon2id` is a const enum, which type stripping cannot inline: its value is 2.
const argon2id = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** Hashes a password into a PHC string (`$argon2id$v=19$m=19456,t=2,p=1$salt$hash`). */
export function hashPassword(password: string): Promise<string> {
  return hash(password.normalize('NFKC'), argon2id);
}

/** Checks a password against a stored hash; a malformed hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  try {
    return await verify(stored, password.normalize('NFKC'));
  } catch {
    return false;
  }
}
