import type { FilterConjunction } from '../../../../domain/meter-filter.ts';
import type { FieldErrors } from '../../api/client';
import { Field } from '../../components/Form';
import { PropertyInput } from '../catalog/PropertyInput';
import {
  type ClauseDraft,
  emptyClause,
  type MeterFormValues,
  operatorOptions,
  type ValueKind,
} from './form';

type FilterDraft = MeterFormValues['filter'];

interface FilterEditorProps {
  filter: FilterDraft;
  errors: FieldErrors;
  onChange: (filter: FilterDraft) => void;
}

const kindOptions: { value: ValueKind; label: string }[] = [
  { value: 'text', label: 'text' },
  { value: 'number', label: 'number' },
  { value: 'boolean', label: 'true/false' },
];

/** The clause with one value changed; a clause turned true/false gets a value it can hold. */
function withChange(clause: ClauseDraft, key: 'operator' | 'kind' | 'value', value: string) {
  const changed = { ...clause, [key]: value };
  if (key === 'kind' && value === 'boolean' && changed.value !== 'false') changed.value = 'true';
  return changed;
}

/** Which events the meter counts: clauses on event properties, joined by and/or. */
export function FilterEditor({ filter, errors, onChange }: FilterEditorProps) {
  const { conjunction, clauses, groups } = filter;
  const setClauses = (next: ClauseDraft[]) => onChange({ ...filter, clauses: next });
  const set = (index: number, clause: ClauseDraft) =>
    setClauses(clauses.map((old, at) => (at === index ? clause : old)));
  const select = (
    index: number,
    key: 'operator' | 'kind' | 'value',
    label: string,
    options: { value: string; label: string }[],
  ) => {
    const clause = clauses[index] as ClauseDraft;
    const name = `filter.clauses.${index}.${key}`;
    return (
      <Field name={name} label={label} error={errors[name]} required>
        {(props) => (
          <select
            {...props}
            value={clause[key]}
            onChange={(event) => set(index, withChange(clause, key, event.target.value))}
          >
            {options.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
        )}
      </Field>
    );
  };
  return (
    <fieldset className="catalog-group">
      <legend>Filter: the events it counts</legend>
      <p className="field-hint">
        Properties: <code>name</code>, <code>source</code>, <code>timestamp</code> or a metadata
        key.
      </p>
      <Field
        name="filter.conjunction"
        label="Events must match"
        error={errors['filter.conjunction']}
        required
      >
        {(props) => (
          <select
            {...props}
            value={conjunction}
            onChange={(event) =>
              onChange({ ...filter, conjunction: event.target.value as FilterConjunction })
            }
          >
            <option value="and">all of the clauses</option>
            <option value="or">any of the clauses</option>
          </select>
        )}
      </Field>
      {errors['filter.clauses'] && (
        <p className="field-error" role="alert">
          {errors['filter.clauses']}
        </p>
      )}
      {clauses.map((clause, index) => (
        // Clauses have no id of their own; their place in the list is their identity here.
        // biome-ignore lint/suspicious/noArrayIndexKey: see above
        <div key={index} className="inline-inputs">
          <PropertyInput
            name={`filter.clauses.${index}.property`}
            label={`Clause ${index + 1} property`}
            errors={errors}
            required
            value={clause.property}
            onChange={(property) => set(index, { ...clause, property })}
          />
          {select(index, 'operator', 'Operator', operatorOptions)}
          {select(index, 'kind', 'Value type', kindOptions)}
          {clause.kind === 'boolean' ? (
            select(index, 'value', 'Value', [
              { value: 'true', label: 'true' },
              { value: 'false', label: 'false' },
            ])
          ) : (
            <PropertyInput
              name={`filter.clauses.${index}.value`}
              label="Value"
              errors={errors}
              inputMode={clause.kind === 'number' ? 'numeric' : undefined}
              value={clause.value}
              onChange={(value) => set(index, { ...clause, value })}
            />
          )}
          <button
            type="button"
            className="button button-quiet"
            onClick={() => setClauses(clauses.filter((_, at) => at !== index))}
          >
            Remove <span className="visually-hidden">clause {index + 1}</span>
          </button>
        </div>
      ))}
      {groups.length > 0 && (
        <p className="muted">
          And {groups.length} nested group(s) made through the API, kept as they are.
        </p>
      )}
      <div>
        <button
          type="button"
          className="button"
          onClick={() => setClauses([...clauses, emptyClause()])}
        >
          Add clause
        </button>
      </div>
    </fieldset>
  );
}
