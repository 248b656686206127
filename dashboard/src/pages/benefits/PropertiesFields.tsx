import { useQuery } from '@tanstack/react-query';
import type { FieldErrors } from '../../api/client';
import { Field } from '../../components/Form';
import { errorUnder } from '../catalog/inputs';
import { PropertyInput } from '../catalog/PropertyInput';
import { metersApi } from '../meters/api';
import {
  type BenefitType,
  connectionsApi,
  type DiscordGuild,
  type GitHubInstallation,
} from './api';
import type { ConnectionProvider } from './connections';
import { FilesField } from './FilesField';
import type { PropertiesDraft } from './form';

/** "Connect a Discord server" / "Connect GitHub": what was connected, and how to connect. */
export interface ConnectionProps {
  guild: DiscordGuild | undefined;
  installation: GitHubInstallation | undefined;
  error: Error | null;
  connect: (provider: ConnectionProvider) => void;
}

interface PropertiesFieldsProps {
  type: BenefitType;
  properties: PropertiesDraft;
  errors: FieldErrors;
  onChange: (change: Partial<PropertiesDraft>) => void;
  /** None where leaving the page to connect is not offered: GitHub repositories are typed in. */
  connection: ConnectionProps | undefined;
}

type TextKey = {
  [Key in keyof PropertiesDraft]: PropertiesDraft[Key] extends string ? Key : never;
}[keyof PropertiesDraft];
type BooleanKey = {
  [Key in keyof PropertiesDraft]: PropertiesDraft[Key] extends boolean ? Key : never;
}[keyof PropertiesDraft];

/** The inputs of one benefit type's `properties`. */
export function PropertiesFields({
  type,
  properties,
  errors,
  onChange,
  connection,
}: PropertiesFieldsProps) {
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
          <DiscordFields
            properties={properties}
            errors={errors}
            onChange={onChange}
            connection={connection}
          />
          {checkbox('kick_member', 'Remove members from the server when the benefit is revoked')}
        </>
      );
    case 'github_repository':
      return (
        <>
          {connection && <ConnectButton provider="github" connection={connection} />}
          {connection?.installation ? (
            <RepositorySelect
              installation={connection.installation}
              properties={properties}
              error={errors['properties.repository_owner'] ?? errors['properties.repository_name']}
              onChange={onChange}
            />
          ) : (
            <>
              {text('repository_owner', 'Repository owner', { required: true })}
              {text('repository_name', 'Repository name', { required: true })}
            </>
          )}
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

const serviceNames = { discord: 'a Discord server', github: 'GitHub' } as const;

/** Leaves for Discord's or GitHub's page; the form comes back filled in as it was. */
function ConnectButton({
  provider,
  connection,
}: {
  provider: ConnectionProvider;
  connection: ConnectionProps;
}) {
  const connected = provider === 'discord' ? connection.guild : connection.installation;
  return (
    <div className="field">
      <button type="button" className="button" onClick={() => connection.connect(provider)}>
        {connected
          ? `Connect another ${provider === 'discord' ? 'server' : 'account'}`
          : `Connect ${serviceNames[provider]}`}
      </button>
      {connection.error && (
        <p className="field-error" role="alert">
          {connection.error.message}
        </p>
      )}
    </div>
  );
}

/**
 * The guild comes from "Connect a Discord server" (its signed token, never typed); its roles
 * are the choices. Editing a benefit reads the roles of the guild it names.
 */
function DiscordFields({
  properties,
  errors,
  onChange,
  connection,
}: Pick<PropertiesFieldsProps, 'properties' | 'errors' | 'onChange' | 'connection'>) {
  const token = properties.guild_token;
  const fresh = connection?.guild?.guild_token === token ? connection.guild : undefined;
  const stored = useQuery({
    queryKey: ['benefit-connections', 'discord', token],
    queryFn: () => connectionsApi.discordRoles(token),
    enabled: Boolean(token) && !fresh,
    retry: false,
  });
  const guild = fresh ?? stored.data;
  const tokenError = errors['properties.guild_token'];
  return (
    <>
      {connection && <ConnectButton provider="discord" connection={connection} />}
      {token && (
        <p className="field-hint">
          Server: {guild ? (guild.guild_name ?? guild.guild_id) : token.split('.')[0]}
        </p>
      )}
      {tokenError && (
        <p className="field-error" role="alert">
          {tokenError}
        </p>
      )}
      {token && (
        <Field
          name="properties.role_id"
          label="Role"
          error={
            errors['properties.role_id'] ??
            (stored.isError ? `Could not load the roles: ${stored.error.message}` : undefined)
          }
          required
        >
          {(props) => (
            <select
              {...props}
              value={properties.role_id}
              onChange={(event) => onChange({ role_id: event.target.value })}
            >
              <option value="">{guild ? 'Choose a role' : 'Loading roles…'}</option>
              {guild?.roles.map((role) => (
                <option key={role.id} value={role.id}>
                  {role.name}
                </option>
              ))}
              {/* The stored role, while the roles load or if it is gone. */}
              {properties.role_id &&
                !guild?.roles.some((role) => role.id === properties.role_id) && (
                  <option value={properties.role_id}>{properties.role_id}</option>
                )}
            </select>
          )}
        </Field>
      )}
    </>
  );
}

/** The repositories the connected installation reaches, as `owner/name` choices. */
function RepositorySelect({
  installation,
  properties,
  error,
  onChange,
}: {
  installation: GitHubInstallation;
  properties: PropertiesDraft;
  error: string | undefined;
  onChange: (change: Partial<PropertiesDraft>) => void;
}) {
  const value = `${properties.repository_owner}/${properties.repository_name}`;
  return (
    <Field name="properties.repository_name" label="Repository" error={error} required>
      {(props) => (
        <select
          {...props}
          value={value}
          onChange={(event) => {
            const [owner = '', ...name] = event.target.value.split('/');
            onChange({ repository_owner: owner, repository_name: name.join('/') });
          }}
        >
          {installation.repositories.map((repository) => {
            const fullName = `${repository.repository_owner}/${repository.repository_name}`;
            return (
              <option key={fullName} value={fullName}>
                {fullName}
              </option>
            );
          })}
        </select>
      )}
    </Field>
  );
}
