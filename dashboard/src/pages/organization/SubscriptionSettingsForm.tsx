import { useQueryClient } from '@tanstack/react-query';
import { organizationUpdateInput } from '../../../../commerce/organizations/schemas.ts';
import { dunningFinalStatuses } from '../../../../domain/organization-settings.ts';
import { prorationBehaviors } from '../../../../domain/subscriptions.ts';
import { ApiError, type FieldErrors } from '../../api/client';
import { Form, SelectField, TextField, useApiForm } from '../../components/Form';
import { CheckboxField } from '../catalog/CheckboxField';
import { type OrganizationSettings, settingsApi, settingsKey } from './api';

interface SettingsValues {
  allow_multiple_subscriptions: boolean;
  allow_customer_updates: boolean;
  proration_behavior: string;
  /** Comma-separated days, as typed. */
  dunning_retry_days: string;
  dunning_final_status: string;
}

const prorationLabels: Record<(typeof prorationBehaviors)[number], string> = {
  invoice: 'Invoice: charge the difference at once',
  prorate: 'Prorate: bill the difference with the next renewal',
};

const toBody = ({ dunning_retry_days: days, ...values }: SettingsValues) => ({
  subscription_settings: {
    ...values,
    dunning_retry_days: days
      .split(',')
      .map((day) => day.trim())
      .filter(Boolean)
      .map(Number),
  },
});

/** The API names `subscription_settings.dunning_retry_days.1`; the form's field is the second part. */
function unnested(errors: FieldErrors): FieldErrors {
  const placed: FieldErrors = {};
  for (const [key, message] of Object.entries(errors)) {
    const [, field = key] = key.split('.');
    placed[field] ??= message;
  }
  return placed;
}

/** The same rules as the API's update schema, issues placed on this form's flat fields. */
const settingsSchema = {
  safeParse: (values: SettingsValues) => {
    const checked = organizationUpdateInput.safeParse(toBody(values));
    return {
      success: checked.success,
      error: checked.error && {
        issues: checked.error.issues.map((issue) => ({ ...issue, path: issue.path.slice(1, 2) })),
      },
    };
  },
};

export function SubscriptionSettingsForm({ organization }: { organization: OrganizationSettings }) {
  const queryClient = useQueryClient();
  const settings = organization.subscription_settings;
  const form = useApiForm(
    { ...settings, dunning_retry_days: settings.dunning_retry_days.join(', ') } as SettingsValues,
    async (values) => {
      try {
        return await settingsApi.update(organization.id, toBody(values));
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        throw new ApiError(error.message, error.status, error.code, unnested(error.fieldErrors));
      }
    },
    {
      schema: settingsSchema,
      onSuccess: (updated) => queryClient.setQueryData([...settingsKey, organization.id], updated),
    },
  );
  return (
    <Form form={form} submitLabel="Save subscription settings">
      <CheckboxField
        form={form}
        name="allow_multiple_subscriptions"
        label="Allow a customer several subscriptions"
      />
      <CheckboxField
        form={form}
        name="allow_customer_updates"
        label="Let customers change their plan in the customer portal"
      />
      <SelectField
        form={form}
        name="proration_behavior"
        label="Plan changes"
        options={prorationBehaviors.map((value) => ({ value, label: prorationLabels[value] }))}
        required
      />
      <TextField
        form={form}
        name="dunning_retry_days"
        label="Retry a failed renewal on days"
        hint="Days after the first failure, ascending, separated by commas (at most 10)."
        inputMode="numeric"
      />
      <SelectField
        form={form}
        name="dunning_final_status"
        label="When the last retry fails"
        options={dunningFinalStatuses.map((value) => ({
          value,
          label: value === 'unpaid' ? 'Mark the subscription unpaid' : 'Cancel the subscription',
        }))}
        required
      />
    </Form>
  );
}
