import { useState } from 'react';
import { benefitTypeLabel } from '../benefits/api';
import type { Benefit } from './api';
import { BenefitSelect, useBenefitChoices } from './BenefitSelect';
import { NewBenefitDialog } from './NewBenefitDialog';

interface BenefitsFieldProps {
  benefits: Benefit[];
  /** Editing a product: what is added or removed is granted or revoked when it is saved. */
  editing: boolean;
  onChange: (benefits: Benefit[]) => void;
}

/**
 * The benefits the product will grant: picked among the organization's, or created here in a
 * dialog (and then picked). They are set on the product once it is saved.
 */
export function BenefitsField({ benefits, editing, onChange }: BenefitsFieldProps) {
  const [chosen, setChosen] = useState('');
  const [creating, setCreating] = useState(false);
  const choices = useBenefitChoices();
  const add = (benefit: Benefit | undefined) => {
    if (benefit) onChange([...benefits, benefit]);
    setChosen('');
  };

  return (
    <fieldset className="form-group">
      <legend>Benefits</legend>
      {editing && (
        <p className="field-hint">
          Saving grants the benefits added to the product's customers, and revokes those removed.
        </p>
      )}
      {benefits.length === 0 ? (
        <p className="muted">No benefits: buyers get the purchase only.</p>
      ) : (
        <ul className="link-list" aria-label="Benefits granted with this product">
          {benefits.map((benefit) => (
            <li key={benefit.id}>
              {benefit.description}{' '}
              <span className="muted">({benefitTypeLabel(benefit.type)})</span>{' '}
              <button
                type="button"
                className="button button-quiet"
                onClick={() => onChange(benefits.filter((one) => one.id !== benefit.id))}
                disabled={!benefit.selectable}
                title={benefit.selectable ? undefined : 'This benefit cannot be removed.'}
              >
                Remove <span className="visually-hidden">{benefit.description}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="form-actions attach-benefit">
        <BenefitSelect
          name="add-benefit"
          label="Add an existing benefit"
          value={chosen}
          onChange={setChosen}
          chosenIds={benefits.map((benefit) => benefit.id)}
          noneHint="No benefits yet: create one."
        />
        <button
          type="button"
          className="button"
          disabled={!chosen}
          onClick={() => add(choices.data?.items.find((benefit) => benefit.id === chosen))}
        >
          Add benefit
        </button>
        <button type="button" className="button" onClick={() => setCreating(true)}>
          Create a new benefit
        </button>
      </div>
      {creating && (
        <NewBenefitDialog
          onCreated={(benefit) => {
            add(benefit);
            setCreating(false);
          }}
          onClose={() => setCreating(false)}
        />
      )}
    </fieldset>
  );
}
