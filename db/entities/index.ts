import { Account } from './account.ts';
import { ApiKey } from './api-key.ts';
import { Invitation } from './invitation.ts';
import { Member } from './member.ts';
import { Organization } from './organization.ts';
import { RateLimit } from './rate-limit.ts';
import { Session } from './session.ts';
import { Team, TeamMember } from './team.ts';
import { User } from './user.ts';
import { Verification } from './verification.ts';

export {
  Account,
  ApiKey,
  Invitation,
  Member,
  Organization,
  RateLimit,
  Session,
  Team,
  TeamMember,
  User,
  Verification,
};

/** Every entity the ORM knows; registered explicitly, no folder scanning. */
export const entities = [
  User,
  Session,
  Account,
  Verification,
  ApiKey,
  RateLimit,
  Organization,
  Member,
  Team,
  TeamMember,
  Invitation,
];
