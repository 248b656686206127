import { useQuery } from '@tanstack/react-query';
import type { FieldErrors } from '../../api/client';
import { productsApi } from './api';
import { emptyPrice, type PriceDraft, priceCopy } from './form';
import { PriceEditor } from './PriceEditor';
import { PriceSummary } from './prices';

interface PricesFieldProps {
  prices: PriceDraft[];
  recurring: boolean;
  errors: FieldErrors;
  onChange: (prices: PriceDraft[]) => void;
}

/**
 * The product's price list: existing prices are kept or removed (removed ones are archived on
 * save), "Change" swaps one for a new price with its amounts, and new prices are typed in full.
 */
export function PricesField({ prices, recurring, errors, onChange }: PricesFieldProps) {
  const meters = useQuery({
    queryKey: ['meters', 'picker'],
    queryFn: ({ signal }) => productsApi.meters(signal),
  });
  const setPrice = (index: number, draft: PriceDraft | null) =>
    onChange(
      draft === null
        ? prices.filter((_, at) => at !== index)
        : prices.map((old, at) => (at === index ? draft : old)),
    );

  return (
    <fieldset className="form-group">
      <legend>Prices</legend>
      <p className="field-hint">
        One fixed, pay-what-you-want or free price, plus any metered prices (recurring products
        only). Prices never change once created: changing one archives it and adds a new one;
        existing subscribers keep theirs.
      </p>
      {errors.prices && <p className="field-error">{errors.prices}</p>}
      {prices.map((draft, index) =>
        draft.kind === 'kept' ? (
          <div key={draft.price.id} className="price-editor">
            <div>
              <PriceSummary price={draft.price} />
            </div>
            {errors[`prices.${index}`] && (
              <p className="field-error">{errors[`prices.${index}`]}</p>
            )}
            <div className="form-actions">
              <button
                type="button"
                className="button"
                onClick={() => setPrice(index, priceCopy(draft.price))}
              >
                Change
              </button>
              <button
                type="button"
                className="button button-quiet"
                onClick={() => setPrice(index, null)}
              >
                Remove
              </button>
            </div>
          </div>
        ) : (
          <PriceEditor
            // Drafts have no id and no state of their own: their position names them.
            // biome-ignore lint/suspicious/noArrayIndexKey: see above
            key={index}
            draft={draft}
            index={index}
            errors={errors}
            meters={meters.data?.items}
            onChange={(changed) => setPrice(index, changed)}
            onDiscard={() =>
              setPrice(index, draft.replaces ? { kind: 'kept', price: draft.replaces } : null)
            }
          />
        ),
      )}
      <div>
        <button
          type="button"
          className="button"
          onClick={() =>
            onChange([
              ...prices,
              emptyPrice(prices.length > 0 && recurring ? 'metered_unit' : 'fixed'),
            ])
          }
        >
          Add a price
        </button>
      </div>
    </fieldset>
  );
}
