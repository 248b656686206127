import { Account } from './account.ts';
import { Session } from './session.ts';
import { User } from './user.ts';
import { Verification } from './verification.ts';

export { Account, Session, User, Verification };

/** Every entity the ORM knows; registered explicitly, no folder scanning. */
export const entities = [User, Session, Account, Verification];
