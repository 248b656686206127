import { useId } from 'react';
import { allScopes, type Scope, type ScopeResource } from '../../../../domain/scopes.ts';
import './organization.css';

/** The resources a token reaches, grouped as the dashboard's sidebar groups them. */
const scopeGroups: { title: string; resources: ScopeResource[] }[] = [
  {
    title: 'Catalog',
    resources: ['products', 'files', 'benefits', 'discounts', 'custom_fields', 'meters'],
  },
  {
    title: 'Sales',
    resources: [
      'checkouts',
      'checkout_links',
      'customers',
      'customer_sessions',
      'orders',
      'subscriptions',
      'refunds',
      'payments',
      'license_keys',
    ],
  },
  { title: 'Usage', resources: ['events', 'customer_meters'] },
  {
    title: 'Organization',
    resources: ['organizations', 'organization_access_tokens', 'webhooks', 'metrics'],
  },
];

const readScopes = allScopes.filter((scope) => scope.endsWith(':read'));
const both = (...resources: ScopeResource[]): Scope[] =>
  resources.flatMap((resource) => [`${resource}:read` as const, `${resource}:write` as const]);

/** Common starting points; the grid below can still change any scope. */
export const scopePresets: { label: string; hint: string; scopes: Scope[] }[] = [
  { label: 'Read-only', hint: 'Reads everything, changes nothing.', scopes: readScopes },
  { label: 'Full access', hint: 'Everything the API allows.', scopes: allScopes },
  {
    label: 'Checkout only',
    hint: 'Opens checkouts and checkout links for the catalog; reads customers.',
    scopes: [
      ...both('checkouts', 'checkout_links'),
      'products:read',
      'discounts:read',
      'customers:read',
    ],
  },
  {
    label: 'Usage reporting',
    hint: 'Sends usage events and reads meters.',
    scopes: [...both('events'), 'meters:read', 'customer_meters:read', 'customers:read'],
  },
];

const resourceLabel = (resource: ScopeResource) => {
  const words = resource.replaceAll('_', ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
};

interface ScopeGridProps {
  selected: string[];
  error: string | undefined;
  onChange: (scopes: string[]) => void;
}

/**
 * A token's scopes as a table: a row per resource, grouped, with read and write columns. Write
 * includes read (domain/scopes.ts `grants`), so checking write checks read and unchecking read
 * unchecks write. Presets fill the grid at once.
 */
export function ScopeGrid({ selected, error, onChange }: ScopeGridProps) {
  const errorId = useId();
  const chosen = new Set(selected);
  const set = (resource: ScopeResource, action: 'read' | 'write', on: boolean) => {
    const next = new Set(chosen);
    if (on) {
      next.add(`${resource}:${action}`);
      if (action === 'write') next.add(`${resource}:read`);
    } else {
      next.delete(`${resource}:${action}`);
      if (action === 'read') next.delete(`${resource}:write`);
    }
    // In the grid's order, as the API lists them.
    onChange(allScopes.filter((scope) => next.has(scope)));
  };
  return (
    <fieldset className="catalog-group" aria-describedby={error ? errorId : undefined}>
      <legend>Scopes</legend>
      <fieldset className="scope-presets">
        <legend className="visually-hidden">Presets</legend>
        {scopePresets.map((preset) => (
          <button
            key={preset.label}
            type="button"
            className="button"
            title={preset.hint}
            onClick={() => onChange(allScopes.filter((scope) => preset.scopes.includes(scope)))}
          >
            {preset.label}
          </button>
        ))}
        <button type="button" className="button" onClick={() => onChange([])}>
          Clear
        </button>
      </fieldset>
      {error && (
        <p className="field-error" id={errorId} role="alert">
          {error}
        </p>
      )}
      <div className="table-scroll">
        <table className="data-table scope-grid">
          <caption className="visually-hidden">Scopes by resource</caption>
          <thead>
            <tr>
              <th scope="col">Resource</th>
              <th scope="col">Read</th>
              <th scope="col">Write</th>
            </tr>
          </thead>
          {scopeGroups.map((group) => (
            <tbody key={group.title}>
              <tr>
                <th scope="rowgroup" colSpan={3} className="scope-group">
                  {group.title}
                </th>
              </tr>
              {group.resources.map((resource) => (
                <tr key={resource}>
                  <th scope="row">{resourceLabel(resource)}</th>
                  {(['read', 'write'] as const).map((action) => (
                    <td key={action}>
                      <input
                        type="checkbox"
                        aria-label={`${resource}:${action}`}
                        checked={chosen.has(`${resource}:${action}`)}
                        onChange={(event) => set(resource, action, event.target.checked)}
                      />
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          ))}
        </table>
      </div>
    </fieldset>
  );
}
