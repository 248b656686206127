import { z } from 'zod';

/**
 * A team's name as create-team and update-team take it (api/auth/organization/team-routes.ts:
 * a non-empty string; that route module is server-only, so the rule is restated here).
 */
export const teamInput = z.object({ name: z.string().min(1, 'Enter a name.') });
