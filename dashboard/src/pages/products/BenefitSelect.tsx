import { useQuery } from '@tanstack/react-query';
import { Field } from '../../components/Form';
import { productsApi } from './api';

/** The organization's benefits a product may offer (the picker's first page, by description). */
export const useBenefitChoices = () =>
  useQuery({
    queryKey: ['benefits', 'picker'],
    queryFn: ({ signal }) => productsApi.benefits(signal),
  });

interface BenefitSelectProps {
  name: string;
  label: string;
  /** The id chosen; '' for none. */
  value: string;
  onChange: (benefitId: string) => void;
  /** The product's benefits already, not offered again. */
  chosenIds: string[];
  error?: string | undefined;
  /** Whether a choice is needed to go on (attaching one), rather than optional. */
  required?: boolean;
  /** What to say when the organization has no benefit yet. */
  noneHint: string;
}

/** A select of the benefits that can be added to a product, saying why it offers none. */
export function BenefitSelect({
  name,
  label,
  value,
  onChange,
  chosenIds,
  error,
  required = false,
  noneHint,
}: BenefitSelectProps) {
  const benefits = useBenefitChoices();
  const choices =
    benefits.data?.items.filter(
      (benefit) => benefit.selectable && !chosenIds.includes(benefit.id),
    ) ?? [];
  return (
    <Field
      name={name}
      label={label}
      required={required}
      error={error}
      hint={
        benefits.isError
          ? `Could not load benefits: ${benefits.error.message}`
          : benefits.data?.items.length === 0
            ? noneHint
            : benefits.data && choices.length === 0
              ? 'Every benefit is attached.'
              : undefined
      }
    >
      {(props) => (
        <select {...props} value={value} onChange={(event) => onChange(event.target.value)}>
          <option value="">{benefits.isPending ? 'Loading benefits…' : 'Choose a benefit'}</option>
          {choices.map((benefit) => (
            <option key={benefit.id} value={benefit.id}>
              {benefit.description} ({benefit.type.replaceAll('_', ' ')})
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}
