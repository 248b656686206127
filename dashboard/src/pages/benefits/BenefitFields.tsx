import { type ApiForm, SelectField, TextField } from '../../components/Form';
import '../catalog/catalog.css';
import { type Benefit, benefitTypes } from './api';
import type { BenefitFormValues } from './form';
import { type ConnectionProps, PropertiesFields } from './PropertiesFields';

interface BenefitFieldsProps {
  form: ApiForm<BenefitFormValues>;
  /** The benefit being edited (its type cannot change); none for a new one. */
  benefit?: Benefit;
  /**
   * "Connect a Discord server" / "Connect GitHub", which leave the page and come back to it.
   * Without it (a benefit created inside another form) Discord roles, which need the
   * connection, are not offered; GitHub repositories are typed in.
   */
  connection?: ConnectionProps;
}

/** A benefit's inputs: its type, description and that type's properties. */
export function BenefitFields({ form, benefit, connection }: BenefitFieldsProps) {
  const { values } = form;
  return (
    <>
      <SelectField
        form={form}
        name="type"
        label="Type"
        options={
          connection ? benefitTypes : benefitTypes.filter((type) => type.value !== 'discord')
        }
        required
        disabled={Boolean(benefit)}
        hint={benefit ? 'A benefit keeps its type.' : undefined}
      />
      <TextField
        form={form}
        name="description"
        label="Description"
        required
        minLength={3}
        maxLength={42}
        hint="What customers see: 3 to 42 characters."
      />
      <PropertiesFields
        type={values.type}
        properties={values.properties}
        errors={form.fieldErrors}
        onChange={(change) => form.setValue('properties', { ...values.properties, ...change })}
        connection={connection}
      />
    </>
  );
}
