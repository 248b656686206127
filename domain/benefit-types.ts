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
