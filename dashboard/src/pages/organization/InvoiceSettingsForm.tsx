import { useQueryClient } from '@tanstack/react-query';
import { organizationUpdateInput } from '../../../../commerce/organizations/schemas.ts';
import { ApiError, type FieldErrors } from '../../api/client';
import { Form, TextField, useApiForm } from '../../components/Form';
import { type OrganizationSettings, settingsApi, settingsKey } from './api';

/** The invoice settings as flat text fields, the address spread out; blank means none. */
interface InvoiceValues {
  legal_name: string;
  line1: string;
  line2: string;
  postal_code: string;
  city: string;
  state: string;
  country: string;
  tax_id: string;
  logo_url: string;
  brand_color: string;
  footer: string;
}

const orNull = (value: string) => value.trim() || null;

/** An address is sent once it has a country; without one the address is cleared. */
const toBody = ({ line1, line2, postal_code, city, state, country, ...values }: InvoiceValues) => ({
  invoice_settings: {
    legal_name: orNull(values.legal_name),
    address: country.trim() ? { line1, line2, postal_code, city, state, country } : null,
    tax_id: orNull(values.tax_id),
    logo_url: orNull(values.logo_url),
    brand_color: orNull(values.brand_color),
    footer: orNull(values.footer),
  },
});

/** The API names `invoice_settings.address.country`; the form's field is the last part. */
function flattened(errors: FieldErrors): FieldErrors {
  const placed: FieldErrors = {};
  for (const [key, message] of Object.entries(errors)) {
    placed[key.split('.').at(-1) ?? key] ??= message;
  }
  return placed;
}

/** The same rules as the API's update schema, issues placed on this form's flat fields. */
const invoiceSchema = {
  safeParse: (values: InvoiceValues) => {
    const checked = organizationUpdateInput.safeParse(toBody(values));
    return {
      success: checked.success,
      error: checked.error && {
        issues: checked.error.issues.map((issue) => ({ ...issue, path: issue.path.slice(-1) })),
      },
    };
  },
};

function initialValues(organization: OrganizationSettings): InvoiceValues {
  const settings = organization.invoice_settings;
  const address = settings.address;
  return {
    legal_name: settings.legal_name ?? '',
    line1: address?.line1 ?? '',
    line2: address?.line2 ?? '',
    postal_code: address?.postal_code ?? '',
    city: address?.city ?? '',
    state: address?.state ?? '',
    country: address?.country ?? '',
    tax_id: settings.tax_id ?? '',
    logo_url: settings.logo_url ?? '',
    brand_color: settings.brand_color ?? '',
    footer: settings.footer ?? '',
  };
}

/** The legal details and branding printed on invoices and credit notes. */
export function InvoiceSettingsForm({ organization }: { organization: OrganizationSettings }) {
  const queryClient = useQueryClient();
  const form = useApiForm(
    initialValues(organization),
    async (values) => {
      try {
        return await settingsApi.update(organization.id, toBody(values));
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        throw new ApiError(error.message, error.status, error.code, flattened(error.fieldErrors));
      }
    },
    {
      schema: invoiceSchema,
      onSuccess: (updated) => queryClient.setQueryData([...settingsKey, organization.id], updated),
    },
  );
  return (
    <Form form={form} submitLabel="Save invoice settings">
      <TextField
        form={form}
        name="legal_name"
        label="Legal name"
        hint="Printed as the seller; the organization's name when blank."
      />
      <TextField form={form} name="line1" label="Address" />
      <TextField form={form} name="line2" label="Address, second line" />
      <TextField form={form} name="postal_code" label="Postal code" />
      <TextField form={form} name="city" label="City" />
      <TextField form={form} name="state" label="State or region" />
      <TextField
        form={form}
        name="country"
        label="Country"
        hint="Two-letter code (FR, US…); the address is left off without one."
        maxLength={2}
      />
      <TextField form={form} name="tax_id" label="Tax ID" />
      <TextField
        form={form}
        name="logo_url"
        label="Logo URL"
        type="url"
        hint="The public URL of a PNG or JPEG uploaded here; other addresses are not printed."
      />
      <TextField
        form={form}
        name="brand_color"
        label="Brand colour"
        hint="#rrggbb, for the title, headings and total."
        placeholder="#1f2937"
      />
      <TextField
        form={form}
        name="footer"
        label="Invoice footer"
        hint="Registration details, bank account, payment terms…"
      />
    </Form>
  );
}
