import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { useState } from 'react';
import { taxRateCreateInput } from '../../../../commerce/tax-rates/schemas.ts';
import { maxRateBps, ratePercent } from '../../../../domain/tax.ts';
import { useSignedIn } from '../../auth/session';
import { EntityPage, Section } from '../../components/EntityPage';
import { ErrorMessage } from '../../components/ErrorMessage';
import { ExportCsvButton } from '../../components/ExportCsvButton';
import { Form, SelectField, TextField, useApiForm } from '../../components/Form';
import { Money } from '../../components/Money';
import { ResourceTable } from '../../components/ResourceListPage';
import { StatusBadge } from '../../components/StatusBadge';
import { CheckboxField } from '../catalog/CheckboxField';
import { DeleteAction } from '../catalog/DeleteAction';
import { Loaded } from '../catalog/Loaded';
import { type OrganizationSettings, settingsApi, settingsKey } from '../organization/api';
import { usePermissions } from '../organization/useRole';
import {
  percentToBps,
  type ReportRange,
  type TaxRate,
  taxApi,
  taxKey,
  taxRatesKey,
  taxReportPath,
} from './tax-api';
import '../organization/organization.css';

const modeOptions = [
  { value: 'none', label: 'No tax' },
  { value: 'seller_rates', label: 'My own tax rates' },
  { value: 'stripe_tax', label: 'Stripe Tax' },
] as const;

interface SettingsValues {
  mode: string;
  home_country: string;
  prices_include_tax: boolean;
}

/** How the organization taxes its sales: its mode, home country and whether prices include tax. */
function TaxSettingsForm({ organization }: { organization: OrganizationSettings }) {
  const queryClient = useQueryClient();
  const settings = organization.tax_settings;
  const form = useApiForm<SettingsValues, OrganizationSettings>(
    {
      mode: settings.mode,
      home_country: settings.home_country ?? '',
      prices_include_tax: settings.prices_include_tax,
    },
    (values) =>
      settingsApi.update(organization.id, {
        tax_settings: { ...values, home_country: values.home_country.trim() || null },
      }),
    {
      onSuccess: (updated) => queryClient.setQueryData([...settingsKey, organization.id], updated),
    },
  );
  return (
    <Form form={form} submitLabel="Save tax settings">
      <SelectField form={form} name="mode" label="Tax mode" options={modeOptions} />
      <TextField
        form={form}
        name="home_country"
        label="Home country"
        hint="Two-letter code (DE, FR…): where you are established, for the EU reverse charge."
        maxLength={2}
      />
      <CheckboxField
        form={form}
        name="prices_include_tax"
        label="Prices include tax"
        hint="New rates include the tax in your prices unless they say otherwise."
      />
    </Form>
  );
}

interface RateValues {
  country: string;
  subdivision: string;
  rate: string;
  display_name: string;
  inclusive: boolean;
}

/** The form's values as the API's body: the percentage in basis points, blanks as none. */
const rateBody = (values: RateValues) => ({
  country: values.country,
  subdivision: values.subdivision.trim() || null,
  rate_bps: percentToBps(values.rate) ?? Number.NaN,
  display_name: values.display_name,
  inclusive: values.inclusive,
});

/** The API names the rate `rate_bps`; the form's field is the percentage, `rate`. */
const rateFieldErrors = (errors: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(errors).map(([key, message]) => [key === 'rate_bps' ? 'rate' : key, message]),
  );

/** The percentage's own rule, then the API's create schema, its issues on the form's fields. */
const rateSchema = {
  safeParse: (values: RateValues) => {
    const bps = percentToBps(values.rate);
    if (bps === null || bps > maxRateBps) {
      const message = 'Rate must be a percentage from 0 to 100, with up to two decimals';
      return { success: false, error: { issues: [{ path: ['rate'], message }] } };
    }
    const checked = taxRateCreateInput.safeParse(rateBody(values));
    return {
      success: checked.success,
      error: checked.error && {
        issues: checked.error.issues.map((issue) => ({
          ...issue,
          path: issue.path.map((part) => (part === 'rate_bps' ? 'rate' : part)),
        })),
      },
    };
  },
};

/** A new rate, or `editing`'s rate and name (a rate's place stays as created). */
function RateForm({ editing, onDone }: { editing: TaxRate | null; onDone: () => void }) {
  const queryClient = useQueryClient();
  const form = useApiForm<RateValues, TaxRate>(
    {
      country: editing?.country ?? '',
      subdivision: editing?.subdivision ?? '',
      rate: editing ? ratePercent(editing.rate_bps).replace('%', '') : '',
      display_name: editing?.display_name ?? '',
      inclusive: editing?.inclusive ?? false,
    },
    (values) => {
      const { rate_bps, display_name, inclusive, ...place } = rateBody(values);
      return editing
        ? taxApi.updateRate(editing.id, { rate_bps, display_name, inclusive })
        : taxApi.createRate({ ...place, rate_bps, display_name, inclusive });
    },
    {
      schema: rateSchema,
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: taxRatesKey });
        onDone();
      },
    },
  );
  const placed = { ...form, fieldErrors: rateFieldErrors(form.fieldErrors) };
  return (
    <Form
      form={placed}
      submitLabel={editing ? 'Save rate' : 'Add rate'}
      actions={
        editing && (
          <button type="button" className="button" onClick={onDone}>
            Cancel
          </button>
        )
      }
    >
      <TextField
        form={placed}
        name="country"
        label="Country"
        hint="Two-letter code (DE, US…)."
        maxLength={2}
        required
        disabled={Boolean(editing)}
      />
      <TextField
        form={placed}
        name="subdivision"
        label="State or province"
        hint="US states and Canadian provinces only (CA, QC…); blank for the whole country."
        disabled={Boolean(editing)}
      />
      <TextField
        form={placed}
        name="rate"
        label="Rate (%)"
        hint="Up to two decimals: 19, 7.25."
        inputMode="decimal"
        required
      />
      <TextField
        form={placed}
        name="display_name"
        label="Name on invoices"
        placeholder="VAT DE"
        required
      />
      <CheckboxField form={placed} name="inclusive" label="Prices include this tax" />
    </Form>
  );
}

const rateColumn = createColumnHelper<TaxRate>();

/** The seller's rates, each editable and deletable. */
function TaxRatesSection() {
  const [editing, setEditing] = useState<TaxRate | null>(null);
  const columns = [
    rateColumn.accessor((rate) => rate.country, {
      id: 'country',
      header: 'Jurisdiction',
      enableSorting: true,
      cell: (cell) => {
        const rate = cell.row.original;
        return rate.subdivision ? `${rate.country}-${rate.subdivision}` : rate.country;
      },
    }),
    rateColumn.accessor('display_name', { header: 'Name' }),
    rateColumn.accessor('rate_bps', {
      header: 'Rate',
      cell: (cell) => ratePercent(cell.getValue()),
    }),
    rateColumn.accessor('inclusive', {
      header: 'Prices',
      cell: (cell) => (cell.getValue() ? 'include tax' : 'exclude tax'),
    }),
    rateColumn.display({
      id: 'actions',
      header: () => <span className="visually-hidden">Actions</span>,
      cell: (cell) => {
        const rate = cell.row.original;
        return (
          <span className="table-filters">
            <button type="button" className="button" onClick={() => setEditing(rate)}>
              Edit {rate.display_name}
            </button>
            <DeleteAction
              label={`Delete ${rate.display_name}`}
              run={() => taxApi.deleteRate(rate.id)}
              queryKey={taxRatesKey}
            >
              Checkouts stop charging this rate; orders already taxed keep their tax.
            </DeleteAction>
          </span>
        );
      },
    }),
  ];
  return (
    <Section title="Tax rates">
      <RateForm key={editing?.id ?? 'new'} editing={editing} onDone={() => setEditing(null)} />
      <ResourceTable
        label="Tax rates"
        source={{ queryKey: taxRatesKey, fetchPage: taxApi.listRates }}
        columns={columns}
        defaultSorting="country"
        empty="No tax rates yet."
      />
    </Section>
  );
}

const today = () => new Date().toISOString().slice(0, 10);
const monthStart = () => `${today().slice(0, 8)}01`;

/** Tax collected per jurisdiction and month over a range of days, with its CSV file. */
function TaxReportSection() {
  const [range, setRange] = useState<ReportRange>({ start_date: monthStart(), end_date: today() });
  const report = useQuery({
    queryKey: [...taxKey, 'report', range],
    queryFn: ({ signal }) => taxApi.report(range, signal),
    enabled: Boolean(range.start_date && range.end_date),
  });
  const dateInput = (name: keyof ReportRange, label: string) => (
    <label className="field">
      {label}
      <input
        type="date"
        name={name}
        value={range[name]}
        onChange={(event) => setRange((current) => ({ ...current, [name]: event.target.value }))}
      />
    </label>
  );
  return (
    <Section
      title="Tax report"
      actions={
        <ExportCsvButton
          path={taxReportPath(range, 'csv')}
          filename={`tax-report-${range.start_date}-${range.end_date}.csv`}
        />
      }
    >
      <div className="table-filters">
        {dateInput('start_date', 'From')}
        {dateInput('end_date', 'To')}
      </div>
      {report.isError && <ErrorMessage title="Could not load the report" error={report.error} />}
      {report.data && report.data.items.length === 0 && (
        <p className="muted">No taxed sales in these days.</p>
      )}
      {report.data && report.data.items.length > 0 && (
        <table className="data-table">
          <caption className="visually-hidden">Tax collected</caption>
          <thead>
            <tr>
              <th>Month</th>
              <th>Jurisdiction</th>
              <th>Taxable amount</th>
              <th>Tax</th>
              <th>Orders</th>
            </tr>
          </thead>
          <tbody>
            {report.data.items.map((row) => (
              <tr
                key={`${row.period} ${row.country} ${row.subdivision} ${row.currency} ${row.reverse_charge}`}
              >
                <td>{row.period}</td>
                <td>
                  {row.subdivision ? `${row.country}-${row.subdivision}` : row.country}{' '}
                  {row.reverse_charge && <StatusBadge tone="info">reverse charge</StatusBadge>}
                </td>
                <td>
                  <Money amount={row.taxable_amount} currency={row.currency} />
                </td>
                <td>
                  <Money amount={row.tax_amount} currency={row.currency} />
                </td>
                <td>{row.order_count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Section>
  );
}

/** Tax (issue 22): how the organization taxes, its rates, and what it collected. */
export default function TaxPage() {
  const { organization } = useSignedIn();
  const { known, isWriter } = usePermissions();
  const settings = useQuery({
    queryKey: [...settingsKey, organization.id],
    queryFn: ({ signal }) => settingsApi.get(organization.id, signal),
  });
  return (
    <EntityPage title="Tax" subtitle={organization.name}>
      <Loaded query={settings} what="the organization's tax settings">
        {(loaded) => (
          <fieldset className="plain-fieldset" disabled={!isWriter}>
            {known && !isWriter && (
              <p className="muted">Only owners and admins change tax settings and rates.</p>
            )}
            <Section title="Tax settings">
              <TaxSettingsForm organization={loaded} />
            </Section>
            <TaxRatesSection />
          </fieldset>
        )}
      </Loaded>
      <TaxReportSection />
    </EntityPage>
  );
}
