/**
 * Rules about benefit properties that need no database: the Discord guild token a seller's
 * benefit carries, and which grant properties each benefit type shows. Plain functions.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

// The limits live apart so browser code can read them without node:crypto.
export { descriptionLength, licenseKeyLimits } from './benefit-limits.ts';

const guildSignature = (secret: string, organizationId: string, guildId: string) =>
  createHmac('sha256', secret)
    .update(`tollgate discord guild:${organizationId}:${guildId}`)
    .digest('base64url');

/**
 * The guild token proving the seller added Tollgate's bot to a Discord guild: `<guild_id>.<hmac>`
 * signed with the auth secret (TOLLGATE_AUTH_SECRET) over the organization and the guild. The
 * Discord connect flow (commerce/benefit-connections) issues it once the bot joined; a discord
 * benefit then names its guild only through this token, which no other organization can use.
 */
export function issueDiscordGuildToken(
  secret: string,
  organizationId: string,
  guildId: string,
): string {
  return `${guildId}.${guildSignature(secret, organizationId, guildId)}`;
}

/** The guild a token was issued for to the organization, or null when it was not. */
export function discordGuildIdOf(
  secret: string,
  organizationId: string,
  token: string,
): string | null {
  const separator = token.lastIndexOf('.');
  if (separator <= 0) return null;
  const guildId = token.slice(0, separator);
  const given = Buffer.from(token.slice(separator + 1));
  const expected = Buffer.from(guildSignature(secret, organizationId, guildId));
  return given.length === expected.length && timingSafeEqual(given, expected) ? guildId : null;
}

/** The grant properties Polar's `BenefitGrant*Properties` list, per benefit type. */
const grantPropertyKeys: Record<string, readonly string[]> = {
  custom: [],
  discord: ['account_id', 'guild_id', 'role_id', 'granted_account_id'],
  github_repository: [
    'account_id',
    'repository_owner',
    'repository_name',
    'permission',
    'granted_account_id',
  ],
  downloadables: ['files'],
  license_keys: ['license_key_id', 'display_key'],
  meter_credit: ['last_credited_meter_id', 'last_credited_units', 'last_credited_at'],
};

// The linked account may be explicitly unknown; every other property is present or absent.
const nullableGrantProperties: readonly string[] = ['account_id'];

/**
 * The properties of a grant of a `benefitType` benefit as /v1 shows them: the type's keys that
 * are known, anything else (internal bookkeeping, unset values) left out.
 */
export function visibleGrantProperties(
  benefitType: string,
  stored: Record<string, unknown>,
): Record<string, unknown> {
  const visible: Record<string, unknown> = {};
  for (const key of grantPropertyKeys[benefitType] ?? []) {
    const value = stored[key];
    if (value === undefined || (value === null && !nullableGrantProperties.includes(key))) continue;
    visible[key] = value;
  }
  return visible;
}
