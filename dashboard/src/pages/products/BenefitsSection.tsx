import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Section } from '../../components/EntityPage';
import { Link } from '../../router';
import { type Benefit, type Product, productKey, productsApi, productsKey } from './api';
import { BenefitSelect } from './BenefitSelect';

/**
 * The benefits a purchase of the product grants. The API takes the whole set each time
 * (`POST /v1/products/{id}/benefits`): attaching grants it to existing customers, detaching
 * revokes it from them, so detaching asks first.
 */
export function BenefitsSection({ product }: { product: Product }) {
  const queryClient = useQueryClient();
  const [chosen, setChosen] = useState('');
  const [detaching, setDetaching] = useState<Benefit | null>(null);
  const attachedIds = product.benefits.map((benefit) => benefit.id);
  const save = async (benefitIds: string[]) => {
    const saved = await productsApi.setBenefits(product.id, benefitIds);
    queryClient.setQueryData(productKey(product.id), saved);
    await queryClient.invalidateQueries({ queryKey: productsKey });
  };
  const attach = useMutation({
    mutationFn: (benefitId: string) => save([...attachedIds, benefitId]),
    onSuccess: () => setChosen(''),
  });

  return (
    <Section title="Benefits">
      {product.benefits.length === 0 ? (
        <p className="muted">No benefits: buyers get the purchase only.</p>
      ) : (
        <table className="data-table">
          <caption className="visually-hidden">Benefits granted with this product</caption>
          <thead>
            <tr>
              <th scope="col">Benefit</th>
              <th scope="col">Type</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {product.benefits.map((benefit) => (
              <tr key={benefit.id}>
                <td>{benefit.description}</td>
                <td>{benefit.type.replaceAll('_', ' ')}</td>
                <td>
                  <button
                    type="button"
                    className="button button-quiet"
                    onClick={() => setDetaching(benefit)}
                    disabled={!benefit.selectable}
                    title={benefit.selectable ? undefined : 'This benefit cannot be detached.'}
                  >
                    Detach <span className="visually-hidden">{benefit.description}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form
        className="form-actions attach-benefit"
        onSubmit={(event) => {
          event.preventDefault();
          if (chosen) attach.mutate(chosen);
        }}
      >
        <BenefitSelect
          name="attach-benefit"
          label="Attach a benefit"
          value={chosen}
          onChange={setChosen}
          chosenIds={attachedIds}
          error={attach.error?.message}
          required
          noneHint="No benefits yet: create one under Benefits, or while editing the product."
        />
        <button type="submit" className="button" disabled={!chosen || attach.isPending}>
          {attach.isPending ? 'Attaching…' : 'Attach'}
        </button>
        <Link to="/benefits">Manage benefits</Link>
      </form>
      <ConfirmDialog
        open={detaching !== null}
        title="Detach this benefit?"
        confirmLabel="Detach benefit"
        tone="danger"
        onConfirm={() => save(attachedIds.filter((id) => id !== detaching?.id))}
        onClose={() => setDetaching(null)}
      >
        <p>
          <strong>{detaching?.description}</strong> will no longer come with {product.name}, and is
          revoked from customers who got it through this product.
        </p>
      </ConfirmDialog>
    </Section>
  );
}
