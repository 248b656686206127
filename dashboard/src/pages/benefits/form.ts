/**
 * The benefit form's values and the BenefitCreate/BenefitUpdate body they make. Every type's
 * properties are kept as typed, so switching the type back and forth loses nothing; the body
 * carries the chosen type's only. Keys are the API's (`properties.expires.ttl`), so its
 * refusals land next to the inputs.
 *
 * The API's schemas (commerce/benefits/schemas.ts) cannot be bundled: their module imports
 * node:crypto (Discord tokens, customer avatars). The same rules are checked here with the same
 * limits (domain/benefit-limits.ts); the API stays the judge.
 */
import { z } from 'zod';
import { descriptionLength, licenseKeyLimits } from '../../../../domain/benefit-limits.ts';
import { numberOrNull, numberText, textOrNull } from '../catalog/inputs';
import type { Benefit, BenefitType } from './api';

export interface PropertiesDraft {
  note: string;
  guild_token: string;
  role_id: string;
  kick_member: boolean;
  repository_owner: string;
  repository_name: string;
  permission: string;
  files: string[];
  archived: Record<string, boolean>;
  prefix: string;
  expires: boolean;
  ttl: string;
  timeframe: string;
  activations: boolean;
  activation_limit: string;
  enable_customer_admin: boolean;
  limit_usage: string;
  units: string;
  rollover: boolean;
  meter_id: string;
}

export interface BenefitFormValues {
  type: BenefitType;
  description: string;
  properties: PropertiesDraft;
}

const emptyProperties: PropertiesDraft = {
  note: '',
  guild_token: '',
  role_id: '',
  kick_member: false,
  repository_owner: '',
  repository_name: '',
  permission: 'pull',
  files: [],
  archived: {},
  prefix: '',
  expires: false,
  ttl: '1',
  timeframe: 'year',
  activations: false,
  activation_limit: '1',
  enable_customer_admin: false,
  limit_usage: '',
  units: '',
  rollover: false,
  meter_id: '',
};

/** Any type's stored properties, as the API answers them. */
interface StoredProperties {
  [key: string]: unknown;
  files?: string[];
  archived?: Record<string, boolean>;
  prefix?: string | null;
  expires?: { ttl: number; timeframe: string } | null;
  activations?: { limit: number; enable_customer_admin: boolean } | null;
  limit_usage?: number | null;
  units?: number;
}

/** The stored properties of `benefit` as drafts (the wire's keys, nested ones flattened). */
function propertiesDraft(benefit: Benefit): PropertiesDraft {
  const stored = benefit.properties as StoredProperties;
  const draft: PropertiesDraft = { ...emptyProperties };
  for (const [key, value] of Object.entries(stored)) {
    if (key in draft && (typeof value === 'string' || typeof value === 'boolean')) {
      Object.assign(draft, { [key]: value });
    }
  }
  const { expires, activations } = stored;
  return {
    ...draft,
    files: stored.files ?? [],
    archived: stored.archived ?? {},
    prefix: stored.prefix ?? '',
    expires: Boolean(expires),
    ttl: expires ? String(expires.ttl) : draft.ttl,
    timeframe: expires?.timeframe ?? draft.timeframe,
    activations: Boolean(activations),
    activation_limit: activations ? String(activations.limit) : draft.activation_limit,
    enable_customer_admin: activations?.enable_customer_admin ?? false,
    limit_usage: numberText(stored.limit_usage),
    units: numberText(stored.units),
  };
}

export const initialValues = (benefit?: Benefit): BenefitFormValues => ({
  type: benefit?.type ?? 'custom',
  description: benefit?.description ?? '',
  properties: benefit ? propertiesDraft(benefit) : emptyProperties,
});

/** A typed integer; NaN (refused at its field by the schema) for text that is none. */
const integer = (text: string) => numberOrNull(text) ?? Number.NaN;

function propertiesBody(type: BenefitType, draft: PropertiesDraft) {
  switch (type) {
    case 'custom':
      return { note: textOrNull(draft.note) };
    case 'discord':
      return {
        guild_token: draft.guild_token,
        role_id: draft.role_id,
        kick_member: draft.kick_member,
      };
    case 'github_repository':
      return {
        repository_owner: draft.repository_owner,
        repository_name: draft.repository_name,
        permission: draft.permission,
      };
    case 'downloadables':
      return { files: draft.files, archived: draft.archived };
    case 'license_keys':
      return {
        prefix: textOrNull(draft.prefix),
        expires: draft.expires ? { ttl: integer(draft.ttl), timeframe: draft.timeframe } : null,
        activations: draft.activations
          ? {
              limit: integer(draft.activation_limit),
              enable_customer_admin: draft.enable_customer_admin,
            }
          : null,
        limit_usage: numberOrNull(draft.limit_usage),
      };
    case 'meter_credit':
      return { units: integer(draft.units), rollover: draft.rollover, meter_id: draft.meter_id };
  }
}

export const benefitBody = (values: BenefitFormValues) => ({
  type: values.type,
  description: values.description,
  properties: propertiesBody(values.type, values.properties),
});

const required = z.string().min(1, 'Required.');
const positive = z.int('Enter a whole number.').positive('Enter a number above 0.');

/** The API's rules on each type's properties (commerce/benefits/schemas.ts). */
const propertiesRules: Record<BenefitType, z.ZodType> = {
  custom: z.object({}),
  discord: z.object({ guild_token: required, role_id: required }),
  github_repository: z.object({ repository_owner: required, repository_name: required }),
  downloadables: z.object({ files: z.array(z.string()).min(1, 'Add at least one file.') }),
  license_keys: z.object({
    expires: z.object({ ttl: positive }).nullable(),
    activations: z
      .object({
        limit: positive.max(
          licenseKeyLimits.maximumActivations,
          `At most ${licenseKeyLimits.maximumActivations} activations.`,
        ),
      })
      .nullable(),
    limit_usage: positive.nullable(),
  }),
  meter_credit: z.object({
    units: positive.max(2_147_483_647),
    meter_id: z.string().min(1, 'Choose a meter.'),
  }),
};

// zod's own wording, which the form words for the field as the API's refusals are
// ("Description must be at least 3 characters", api/issues.ts).
const description = z.string().min(descriptionLength.minimum).max(descriptionLength.maximum);

/** The API's rules, run on the body the values make. */
export const benefitFormSchema = {
  safeParse(values: unknown) {
    const body = benefitBody(values as BenefitFormValues);
    return z.object({ description, properties: propertiesRules[body.type] }).safeParse(body);
  },
};
