import type { InputHTMLAttributes } from 'react';
import type { FieldErrors } from '../../api/client';
import { Field } from '../../components/Form';
import { Link } from '../../router';
import type { Meter } from './api';
import {
  type NewAmountType,
  type NewPriceDraft,
  newAmountTypes,
  type PriceTextField,
} from './form';
import { PriceSummary } from './prices';

interface PriceEditorProps {
  draft: NewPriceDraft;
  /** Where the price sits in the product's list: its fields are `prices.<index>.<name>`. */
  index: number;
  errors: FieldErrors;
  meters: Meter[] | undefined;
  onChange: (draft: NewPriceDraft) => void;
  /** Drops this draft; one that replaces a price brings that price back. */
  onDiscard: () => void;
}

/** The inputs of one new price, those of its amount type only. */
export function PriceEditor({
  draft,
  index,
  errors,
  meters,
  onChange,
  onDiscard,
}: PriceEditorProps) {
  const key = (field: string) => `prices.${index}${field ? `.${field}` : ''}`;
  const text = (
    field: PriceTextField,
    label: string,
    {
      required = false,
      hint,
      ...input
    }: { required?: boolean; hint?: string } & InputHTMLAttributes<HTMLInputElement> = {},
  ) => (
    <Field
      name={key(field)}
      label={label}
      hint={hint}
      error={errors[key(field)]}
      required={required}
    >
      {(props) => (
        <input
          {...props}
          {...input}
          inputMode="decimal"
          value={draft[field]}
          onChange={(event) => onChange({ ...draft, [field]: event.target.value })}
        />
      )}
    </Field>
  );
  const money = 'In dollars, such as 12.50.';
  return (
    <fieldset className="price-editor">
      <legend>New price</legend>
      {draft.replaces && (
        <p className="field-hint">
          Replaces <PriceSummary price={draft.replaces} />, archived when you save.
        </p>
      )}
      {errors[key('')] && <p className="field-error">{errors[key('')]}</p>}
      <div className="price-editor-fields">
        <Field
          name={key('amount_type')}
          label="Amount type"
          required
          error={errors[key('amount_type')]}
        >
          {(props) => (
            <select
              {...props}
              value={draft.amount_type}
              onChange={(event) =>
                onChange({ ...draft, amount_type: event.target.value as NewAmountType })
              }
            >
              {newAmountTypes.map((type) => (
                <option key={type.value} value={type.value}>
                  {type.label}
                </option>
              ))}
            </select>
          )}
        </Field>
        {draft.amount_type === 'fixed' &&
          text('price_amount', 'Amount (USD)', { required: true, hint: money })}
        {draft.amount_type === 'custom' && (
          <>
            {text('minimum_amount', 'Minimum (USD)', { hint: 'At least 0.50; empty for 0.50.' })}
            {text('maximum_amount', 'Maximum (USD)', { hint: 'Empty for no maximum.' })}
            {text('preset_amount', 'Suggested amount (USD)', { hint: 'Shown first at checkout.' })}
          </>
        )}
        {draft.amount_type === 'metered_unit' && (
          <>
            <Field
              name={key('meter_id')}
              label="Meter"
              required
              error={errors[key('meter_id')]}
              hint={meters?.length === 0 ? undefined : 'What usage this price bills.'}
            >
              {(props) => (
                <select
                  {...props}
                  value={draft.meter_id}
                  onChange={(event) => onChange({ ...draft, meter_id: event.target.value })}
                >
                  <option value="">{meters ? 'Choose a meter' : 'Loading meters…'}</option>
                  {meters?.map((meter) => (
                    <option key={meter.id} value={meter.id}>
                      {meter.name}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            {text('unit_amount', 'Unit amount (cents)', {
              required: true,
              hint: 'Cents per unit, up to 12 decimals: 0.5 bills $1 per 200 units.',
            })}
            {text('cap_amount', 'Cap per period (USD)', { hint: 'Empty for no cap.' })}
          </>
        )}
      </div>
      {draft.amount_type === 'metered_unit' && meters?.length === 0 && (
        <p className="field-hint">
          No meters yet: <Link to="/meters">create a meter</Link> first.
        </p>
      )}
      <div>
        <button type="button" className="button button-quiet" onClick={onDiscard}>
          {draft.replaces ? 'Keep the old price' : 'Remove this price'}
        </button>
      </div>
    </fieldset>
  );
}
