import { useQuery } from '@tanstack/react-query';
import type { FieldErrors } from '../../api/client';
import { Field } from '../../components/Form';
import { errorUnder } from '../catalog/inputs';
import { PropertyInput } from '../catalog/PropertyInput';
import { metersApi } from '../meters/api';
import type { BenefitType } from './api';
import { FilesField } from './FilesField';
import type { PropertiesDraft } from './form';

interface PropertiesFieldsProps {
  type: BenefitType;
  properties: PropertiesDraft;
  errors: FieldErrors;
  onChange: (change: Partial<PropertiesDraft>) => void;
}

type TextKey = {
  [Key in keyof PropertiesDraft]: PropertiesDraft[Key] extends string ? Key : never;
}[keyof PropertiesDraft];
type BooleanKey = {
  [Key in keyof PropertiesDraft]: PropertiesDraft[Key] extends boolean ? Key : never;
}[keyof PropertiesDraft];

/** The inputs of one benefit type's `properties`. */
export function PropertiesFields({ type, properties, errors, onChange }: PropertiesFieldsProps) {
  const text = (
    key: TextKey,
    label: string,
    extra: { errorKey?: string; hint?: string; type?: string; required?: boolean } = {},
  ) => {
    const { errorKey = `properties.${key}`, ...input } = extra;
    return (
      <PropertyInput
        name={errorKey}
        label={label}
        errors={errors}
        value={properties[key]}
        onChange={(value) => onChange({ [key]: value })}
        {...input}
      />
    );
  };
  const checkbox = (key: BooleanKey, label: string) => (
    <label className="checkbox-line">
      <input
        type="checkbox"
        checked={properties[key]}
        onChange={(event) => onChange({ [key]: event.target.checked })}
      />
      {label}
    </label>
  );
  const choice = (key: TextKey, label: string, options: readonly string[]) => (
    <Field name={`properties.${key}`} label={label} error={errors[`properties.${key}`]} required>
      {(props) => (
        <select
          {...props}
          value={properties[key]}
          onChange={(event) => onChange({ [key]: event.target.value })}
        >
          {options.map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </select>
      )}
    </Field>
  );

  switch (type) {
    case 'custom':
      return text('note', 'Note', { hint: 'Shown to customers once they have the benefit.' });
    case 'discord':
      return (
        <>
          {text('guild_token', 'Server (guild) token', { required: true })}
          {text('role_id', 'Role id', { required: true })}
          {checkbox('kick_member', 'Remove members from the server when the benefit is revoked')}
        </>
      );
    case 'github_repository':
      return (
        <>
          {text('repository_owner', 'Repository owner', { required: true })}
          {text('repository_name', 'Repository name', { required: true })}
          {choice('permission', 'Permission', ['pull', 'triage', 'push', 'maintain', 'admin'])}
        </>
      );
    case 'downloadables':
      return (
        <FilesField
          files={properties.files}
          error={errorUnder(errors, 'properties.files')}
          onChange={(files) => onChange({ files })}
        />
      );
    case 'license_keys':
      return (
        <>
          {text('prefix', 'Key prefix', { hint: 'Keys start with it (ACME-…).' })}
          {checkbox('expires', 'Keys expire')}
          {properties.expires && (
            <div className="inline-inputs">
              {text('ttl', 'Expire after', {
                errorKey: 'properties.expires.ttl',
                type: 'number',
                required: true,
              })}
              {choice('timeframe', 'Unit', ['day', 'month', 'year'])}
            </div>
          )}
          {checkbox('activations', 'Limit activations (devices)')}
          {properties.activations && (
            <>
              {text('activation_limit', 'Activations allowed', {
                errorKey: 'properties.activations.limit',
                type: 'number',
                required: true,
                hint: 'From 1 to 50.',
              })}
              {checkbox('enable_customer_admin', 'Customers may deactivate devices themselves')}
            </>
          )}
          {text('limit_usage', 'Usage limit', {
            type: 'number',
            hint: 'How many times a key may be used; empty for no limit.',
          })}
        </>
      );
    case 'meter_credit':
      return (
        <>
          <MeterSelect
            value={properties.meter_id}
            error={errors['properties.meter_id']}
            onChange={(meter_id) => onChange({ meter_id })}
          />
          {text('units', 'Units credited', { type: 'number', required: true })}
          {checkbox('rollover', 'Unused units roll over to the next period')}
        </>
      );
  }
}

function MeterSelect({
  value,
  error,
  onChange,
}: {
  value: string;
  error: string | undefined;
  onChange: (meterId: string) => void;
}) {
  const meters = useQuery({
    queryKey: ['meters', 'picker'],
    queryFn: ({ signal }) =>
      metersApi.list({ page: 1, limit: 100, sorting: ['name'], is_archived: 'false' }, signal),
  });
  return (
    <Field
      name="properties.meter_id"
      label="Meter"
      error={
        error ?? (meters.isError ? `Could not load meters: ${meters.error.message}` : undefined)
      }
      required
    >
      {(props) => (
        <select {...props} value={value} onChange={(event) => onChange(event.target.value)}>
          <option value="">{meters.isPending ? 'Loading meters…' : 'Choose a meter'}</option>
          {meters.data?.items.map((meter) => (
            <option key={meter.id} value={meter.id}>
              {meter.name}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}
