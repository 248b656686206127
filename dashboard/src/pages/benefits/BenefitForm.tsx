import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Form, SelectField, TextField, useApiForm } from '../../components/Form';
import { Link, navigate } from '../../router';
import '../catalog/catalog.css';
import { type Benefit, benefitsApi, benefitsKey, benefitTypes } from './api';
import { type ConnectionProvider, connect, takeConnected } from './connections';
import { type BenefitFormValues, benefitBody, benefitFormSchema, initialValues } from './form';
import { PropertiesFields } from './PropertiesFields';

/** Creates a benefit, or edits `benefit` (whose type cannot change). */
export function BenefitForm({ benefit }: { benefit?: Benefit }) {
  const queryClient = useQueryClient();
  // Back from connecting Discord or GitHub: the values left behind, and what was connected.
  const [connected] = useState(takeConnected);
  const [connectError, setConnectError] = useState<Error | null>(null);
  const form = useApiForm<BenefitFormValues, Benefit>(
    connected?.values ?? initialValues(benefit),
    (values) =>
      benefit
        ? benefitsApi.update(benefit.id, benefitBody(values))
        : benefitsApi.create(benefitBody(values)),
    {
      schema: benefitFormSchema,
      onSuccess: async (saved) => {
        await queryClient.invalidateQueries({ queryKey: benefitsKey });
        navigate(`/benefits/${saved.id}`);
      },
    },
  );
  const { values } = form;
  return (
    <Form
      form={form}
      submitLabel={benefit ? 'Save changes' : 'Create benefit'}
      actions={
        <Link to={benefit ? `/benefits/${benefit.id}` : '/benefits'} className="button">
          Cancel
        </Link>
      }
    >
      <SelectField
        form={form}
        name="type"
        label="Type"
        options={benefitTypes}
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
        connection={{
          guild: connected?.guild,
          installation: connected?.installation,
          error: connectError,
          connect: (provider: ConnectionProvider) => {
            setConnectError(null);
            connect(provider, values).catch(setConnectError);
          },
        }}
      />
    </Form>
  );
}
