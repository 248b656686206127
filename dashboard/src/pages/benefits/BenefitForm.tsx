import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Form, useApiForm } from '../../components/Form';
import { Link, navigate } from '../../router';
import { type Benefit, benefitsApi, benefitsKey } from './api';
import { BenefitFields } from './BenefitFields';
import { type ConnectionProvider, connect, takeConnected } from './connections';
import { type BenefitFormValues, benefitBody, benefitFormSchema, initialValues } from './form';

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
      <BenefitFields
        form={form}
        benefit={benefit}
        connection={{
          guild: connected?.guild,
          installation: connected?.installation,
          error: connectError,
          connect: (provider: ConnectionProvider) => {
            setConnectError(null);
            connect(provider, form.values).catch(setConnectError);
          },
        }}
      />
    </Form>
  );
}
