/** What a benefit grants: Polar's benefit types. */
export const benefitTypes = [
  'custom',
  'discord',
  'github_repository',
  'downloadables',
  'license_keys',
  'meter_credit',
] as const;
export type BenefitType = (typeof benefitTypes)[number];

/** The access a github_repository benefit gives to its repository. */
export const githubPermissions = ['pull', 'triage', 'push', 'maintain', 'admin'] as const;

/** Where a customer links an account of their own for a grant: Discord and GitHub. */
export const customerOAuthPlatforms = ['discord', 'github'] as const;
export type CustomerOAuthPlatform = (typeof customerOAuthPlatforms)[number];
