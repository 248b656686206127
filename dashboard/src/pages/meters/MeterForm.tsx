import { useQueryClient } from '@tanstack/react-query';
import type { AggregationFunction } from '../../../../domain/meter-filter.ts';
import { Field, Form, TextField, useApiForm } from '../../components/Form';
import { Link, navigate } from '../../router';
import '../catalog/catalog.css';
import { PropertyInput } from '../catalog/PropertyInput';
import { type Meter, metersApi, metersKey } from './api';
import { FilterEditor } from './FilterEditor';
import {
  aggregationOptions,
  initialValues,
  type MeterFormValues,
  meterBody,
  meterFormSchema,
} from './form';

/** Creates a meter, or edits `meter`'s name, filter and aggregation. */
export function MeterForm({ meter }: { meter?: Meter }) {
  const queryClient = useQueryClient();
  const form = useApiForm<MeterFormValues, Meter>(
    initialValues(meter),
    (values) =>
      meter ? metersApi.update(meter.id, meterBody(values)) : metersApi.create(meterBody(values)),
    {
      schema: meterFormSchema(!meter),
      onSuccess: async (saved) => {
        await queryClient.invalidateQueries({ queryKey: metersKey });
        navigate(`/meters/${saved.id}`);
      },
    },
  );
  const { values, fieldErrors } = form;
  const aggregation = values.aggregation;
  const setAggregation = (change: Partial<MeterFormValues['aggregation']>) =>
    form.setValue('aggregation', { ...aggregation, ...change });
  return (
    <Form
      form={form}
      submitLabel={meter ? 'Save changes' : 'Create meter'}
      actions={
        <Link to={meter ? `/meters/${meter.id}` : '/meters'} className="button">
          Cancel
        </Link>
      }
    >
      <TextField form={form} name="name" label="Name" required minLength={3} />
      <FilterEditor
        filter={values.filter}
        errors={fieldErrors}
        onChange={(filter) => form.setValue('filter', filter)}
      />
      <Field
        name="aggregation.func"
        label="Aggregation"
        error={fieldErrors['aggregation.func']}
        required
      >
        {(props) => (
          <select
            {...props}
            value={aggregation.func}
            onChange={(event) =>
              setAggregation({ func: event.target.value as AggregationFunction })
            }
          >
            {aggregationOptions.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
        )}
      </Field>
      {aggregation.func !== 'count' && (
        <PropertyInput
          name="aggregation.property"
          label="Aggregated property"
          errors={fieldErrors}
          required
          hint="A metadata key of the events (tokens, duration…)."
          value={aggregation.property}
          onChange={(property) => setAggregation({ property })}
        />
      )}
    </Form>
  );
}
