/** Who is calling /v1, always on behalf of exactly one organization. */
export type CommerceCaller =
  | { kind: 'organization_token'; organizationId: string; tokenId: string; scopes: Set<string> }
  | {
      kind: 'member';
      organizationId: string;
      userId: string;
      role: string;
      scopes: Set<string>;
      /** Signed in within the fresh age: required for managing credentials. */
      freshSession: boolean;
    };

/** What every organization access token starts with (as Polar's do). */
export const organizationTokenPrefix = 'polar_oat_';
