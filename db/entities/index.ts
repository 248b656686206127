import { Account } from './account.ts';
import { ApiKey } from './api-key.ts';
import { RateLimit } from './rate-limit.ts';
import { Session } from './session.ts';
import { User } from './user.ts';
import { Verification } from './verification.ts';

export { Account, ApiKey, RateLimit, Session, User, Verification };

/** Every entity the ORM knows; registered explicitly, no folder scanning. */
export const entities = [User, Session, Account, Verification, ApiKey, RateLimit];
